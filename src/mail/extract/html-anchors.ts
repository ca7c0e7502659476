// The anchors of an HTML body: each link's target (entities decoded by the parser), the text a reader sees on
// it (or the alt text of the image drawn instead), and the words around it on the page, read as a reader would:
// one line per block, source line breaks as spaces, nothing of <style>, <script>, <title> or <head>.
import { Parser } from 'htmlparser2';
import { contextAround } from './link-kinds.ts';

export interface Anchor {
  /** The link's URL as the normaliser gave it. */
  url: string;
  /** What the anchor says, whitespace collapsed, ≤ 200 characters; its images' alt text when it has no text. */
  text: string | null;
  /** The words before and after it (since the previous link, until the next), made when asked. */
  context: () => string;
}

const SKIPPED = new Set(['style', 'script', 'title', 'head', 'template', 'noscript', 'xml']);
const BLOCKS = new Set([
  ...['p', 'div', 'br', 'tr', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'tbody', 'thead', 'tfoot', 'hr'],
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'center', 'section', 'article', 'header', 'footer'],
  ...['main', 'nav', 'aside', 'address', 'figure', 'figcaption', 'form', 'body', 'html'],
]);
// U+034F, the combining grapheme joiner, is no character of its own: outside the class.
const INVISIBLE = /\u034F|[\u00AD\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u3164\uFEFF\uFFA0]/gu;
export const MAX_TEXT = 200;

/** Whitespace collapsed, invisible characters dropped, cut to `MAX_TEXT` code points; null when nothing is left. */
export function visibleText(value: string): string | null {
  const text = value.replace(INVISIBLE, '').replace(/\s+/gu, ' ').trim();
  if (!text) return null;
  const points = Array.from(text);
  return points.length <= MAX_TEXT ? text : points.slice(0, MAX_TEXT).join('').trimEnd();
}

interface Open {
  url: string | undefined;
  start: number;
  text: string[];
  alts: string[];
}

interface Span {
  url: string;
  text: string | null;
  start: number;
  end: number;
}

/** `normalise` turns an href into the link's URL, or undefined when it is not a link (mailto:, relative, …). */
export function htmlAnchors(html: string, normalise: (href: string) => string | undefined): Anchor[] {
  let page = '';
  let skipping = 0;
  let open: Open | undefined;
  const spans: Span[] = [];

  const close = () => {
    if (open?.url !== undefined) {
      const text = visibleText(open.text.join('')) ?? visibleText(open.alts.join(' '));
      spans.push({ url: open.url, text, start: open.start, end: page.length });
    }
    open = undefined;
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (SKIPPED.has(name)) skipping++;
        else if (BLOCKS.has(name)) page += '\n';
        if (name === 'a') {
          close(); // an anchor inside an anchor ends the first
          const href = attributes.href;
          open = { url: href === undefined ? undefined : normalise(href), start: page.length, text: [], alts: [] };
        } else if (name === 'img' && open && attributes.alt) {
          open.alts.push(attributes.alt);
        }
      },
      ontext(text) {
        if (skipping > 0) return;
        const flat = text.replace(/\s+/g, ' ');
        page += flat;
        open?.text.push(flat);
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (BLOCKS.has(name)) page += '\n';
        if (name === 'a') close();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  close();

  return spans.map((span, k) => {
    const before = () => page.slice(Math.max(spans[k - 1]?.end ?? 0, span.start - 600), span.start);
    const after = () => page.slice(span.end, Math.min(spans[k + 1]?.start ?? page.length, span.end + 300));
    return { url: span.url, text: span.text, context: () => contextAround(before(), after()) };
  });
}
