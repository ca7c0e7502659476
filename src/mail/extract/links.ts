// The links of a message, as its sender wrote them: the http(s) targets of the HTML's anchors in document order,
// then the URLs written out in a real text/plain part, then the http(s) URLs of the List-Unsubscribe header;
// each URL once. A text body the MIME parser made from the HTML is never read: it writes an image as `[src]`,
// and reading it gave image URLs as links, glued to the next word by the `]`. URLs are compared in their WHATWG
// form (scheme and host lower-cased, default port dropped); tracking wrappers are kept as they are: the link a
// person would click is the one shown. Each link says what it reads as (its anchor text) and what it is for
// (its kind). The rule for URLs in text is written down in docs/links.md.
import { htmlAnchors } from './html-anchors.ts';
import { classifyLink, contextAround, type LinkKind } from './link-kinds.ts';
import { textUrls } from './text-urls.ts';

/** Bumped whenever what is found changes: messages read by an older version are read again on request. */
export const LINKS_VERSION = 1;

export interface Link {
  index: number;
  url: string;
  /** The anchor's text (whitespace collapsed, ≤ 200 characters), an image-only anchor's alt text; null for a
   * URL written in the text or named by List-Unsubscribe. */
  text: string | null;
  kind: LinkKind;
}

export interface LinksInput {
  html: string | null;
  /** The message's own text/plain parts, never a text made from its HTML; null when it has none. */
  plainText: string | null;
  /** Header names lower-cased (List-Unsubscribe is read). */
  headers: Record<string, string>;
}

const MAX_LINKS = 1000;

export function extractLinks({ html, plainText, headers }: LinksInput): Link[] {
  const links: Link[] = [];
  const byUrl = new Map<string, Link>();
  const add = (url: string, text: string | null, kind: LinkKind, sure = false) => {
    const seen = byUrl.get(url);
    if (seen) {
      // One link per URL: the first place it appears with its text there, and the first kind more telling
      // than `other` (or the kind the headers say it has).
      if (seen.kind === 'other' || sure) seen.kind = kind;
    } else if (links.length < MAX_LINKS) {
      const link = { index: links.length, url, text, kind };
      links.push(link);
      byUrl.set(url, link);
    }
  };

  if (html) {
    for (const anchor of htmlAnchors(html, normalise)) add(anchor.url, anchor.text, classifyLink(anchor));
  }
  if (plainText) {
    const found = textUrls(plainText);
    found.forEach(({ url: written, start, end }, k) => {
      const url = normalise(written);
      if (url === undefined) return;
      const context = () =>
        contextAround(
          plainText.slice(Math.max(found[k - 1]?.end ?? 0, start - 600), start),
          plainText.slice(end, Math.min(found[k + 1]?.start ?? plainText.length, end + 300)),
        );
      add(url, null, classifyLink({ url, text: null, context }));
    });
  }
  for (const url of listUnsubscribe(headers['list-unsubscribe'])) add(url, null, 'unsubscribe', true);
  return links;
}

/** The http(s) URLs of a List-Unsubscribe header (RFC 2369: `<uri>` entries separated by commas). */
function listUnsubscribe(value: string | undefined): string[] {
  if (!value) return [];
  const entries = value.includes('<') ? [...value.matchAll(/<([^>]*)>/g)].map((m) => m[1]!) : value.split(',');
  return entries.flatMap((entry) => normalise(entry.replace(/\s+/g, '')) ?? []);
}

/** The link's URL in WHATWG form; undefined for what is not an http(s) link (mailto:, tel:, relative, #). */
export function normalise(candidate: string): string | undefined {
  const value = candidate.trim();
  if (!/^https?:\/\//i.test(value)) return undefined;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
