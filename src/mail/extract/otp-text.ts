// The text the OTP detector reads: HTML turned into lines as a reader sees them, and every part normalised so
// that one pattern matches codes however they were typed.
import { compile } from 'html-to-text';

/** The marks that end a sentence besides the full stop: Latin, CJK, Devanagari (danda), Urdu, Arabic, Ethiopic, Burmese. */
export const SENTENCE_MARKS = '!?。！？।۔؟።။';

const HTML_OPTIONS = {
  wordwrap: false as const,
  formatters: {
    // Table cells side by side stay on one line, a space apart (a code split across cells reads 4 8 2 9 1 3).
    cell: (
      elem: { children: unknown[] },
      walk: (nodes: unknown[], builder: unknown) => void,
      builder: { addInline(text: string): void },
    ) => {
      walk(elem.children, builder);
      builder.addInline('\u2002');
    },
  },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'table', format: 'block' },
    { selector: 'tr', format: 'block' },
    { selector: 'td', format: 'cell' },
    { selector: 'th', format: 'cell' },
  ],
};

// Compiled once: converting with options each time cost twice as much (bench:extract).
const toText = compile(HTML_OPTIONS as never);

export function htmlText(html: string): string {
  try {
    return toText(html);
  } catch {
    return html.replace(/<[^>]*>/g, ' ');
  }
}

/** Full-width digits and letters to ASCII, every space alike, invisible characters and links out (their digits are not codes). */
export function normalise(text: string): string {
  return (
    text
      .normalize('NFC')
      // Full-width digits and Latin letters (common in Japanese and Chinese mail) as ASCII; full-width
      // punctuation stays, so that `，` after a code is not read as a decimal comma.
      .replace(/[\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
      .replace(/https?:\/\/\S+|www\.\S+|(?<!\S)[^\s@]+@[^\s@]+\.[^\s@]+/gi, ' ')
      .replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, '')
      // One apostrophe for words written with it (n’est plus valide, Uzbek ro’yxat).
      .replace(/[\u2019\u02BC]/g, "'")
      .replace(/[^\S\n]+/g, ' ')
  );
}
