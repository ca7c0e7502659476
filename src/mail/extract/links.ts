// The links of a message: http(s) URLs of the HTML's anchors in document order, then those written out in the
// text part, each once. Entities are decoded by the HTML parser; URLs are compared in their WHATWG form
// (scheme and host lower-cased, default port dropped), and tracking wrappers are kept as they are: the link a
// person would click is the one shown.
import { Parser } from 'htmlparser2';

export interface Link {
  index: number;
  url: string;
}

// Stops at whitespace, quotes and angle brackets; trailing punctuation of the sentence is trimmed below.
const TEXT_URL = /\bhttps?:\/\/[^\s<>"'`]+/gi;
const TRAILING = /[.,;:!?'")\]}>]+$/;
const MAX_LINKS = 1000;

export function extractLinks(html: string | null, text: string | null): Link[] {
  const seen = new Set<string>();
  const links: Link[] = [];
  const add = (candidate: string) => {
    if (links.length >= MAX_LINKS) return;
    const url = normalise(candidate);
    if (url === undefined || seen.has(url)) return;
    seen.add(url);
    links.push({ index: links.length, url });
  };
  if (html) {
    const parser = new Parser(
      { onopentag: (name, attributes) => name === 'a' && attributes.href !== undefined && add(attributes.href) },
      { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
    );
    parser.write(html);
    parser.end();
  }
  if (text) {
    for (const match of text.matchAll(TEXT_URL)) add(trimTrailing(match[0]));
  }
  return links;
}

function normalise(candidate: string): string | undefined {
  const value = candidate.trim();
  if (!/^https?:\/\//i.test(value)) return undefined; // mailto:, javascript:, tel:, relative, fragments
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A URL at the end of a sentence or in brackets: the closing punctuation is not part of it, unless balanced. */
function trimTrailing(url: string): string {
  let trimmed = url.replace(TRAILING, '');
  // Keep a closing parenthesis that closes one opened inside the URL (Wikipedia-style paths).
  const opened = (trimmed.match(/\(/g) ?? []).length;
  const closed = (trimmed.match(/\)/g) ?? []).length;
  if (opened > closed && url.length > trimmed.length && url[trimmed.length] === ')') trimmed += ')';
  return trimmed;
}
