// URLs written out in plain text. A URL ends where RFC 3986 says it must: at a character no URI may hold. In
// ASCII that is whitespace, controls, `"<>\^`{|}`, and `[` `]` anywhere but around an IPv6 literal host. Beyond
// ASCII an IRI (RFC 3987) may hold letters, but not punctuation, symbols, spaces or invisible format marks, and
// a letter of a script written without spaces (Chinese, Japanese, Korean, Thai, …) or a full-width form is the
// next word, not the URL: `(https://x.example/a)から` ends before `)から`. Then the sentence's punctuation is
// trimmed from its end, keeping a closing parenthesis that closes one opened inside the URL.

/** A URL as written in the text, and where. */
export interface TextUrl {
  url: string;
  start: number;
  end: number;
}

const START = /\bhttps?:\/\//gi;
/** The ASCII characters of RFC 3986 (unreserved, reserved and `%`) but `[` and `]`, which only bracket an IPv6 host. */
const URI_ASCII = /[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/;
const IPV6_LITERAL = /^\[[0-9A-Za-z:._~!$&'()*+,;=-]+\]/;
/** Non-ASCII characters that end a URL: punctuation, symbols, separators, controls and format marks, letters of
 * scripts without spaces between words, and the half- and full-width forms of CJK text. */
const NOT_IRI =
  /[\p{P}\p{S}\p{Z}\p{C}\p{White_Space}\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}\p{scx=Bopo}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmr}\p{scx=Mymr}\p{scx=Tibt}\p{scx=Yi}\u{FF00}-\u{FFEF}]/u;
/** Ends a sentence or a bracket rather than a URL, when last. */
const TRAILING = new Set(['.', ',', ';', ':', '!', '?', "'", '*', ')']);
/** Longer than any URL a person could use; a run beyond it is not scanned further. */
const MAX_URL = 8192;

export function textUrls(text: string): TextUrl[] {
  const found: TextUrl[] = [];
  START.lastIndex = 0;
  for (let match = START.exec(text); match; match = START.exec(text)) {
    const start = match.index;
    const end = trimTrailing(text, start, scanEnd(text, start + match[0].length));
    START.lastIndex = Math.max(end, start + match[0].length);
    if (end > start + match[0].length) found.push({ url: text.slice(start, end), start, end });
  }
  return found;
}

/** Where the URL whose authority starts at `from` stops (exclusive), before trimming. */
function scanEnd(text: string, from: number): number {
  let i = from;
  // An IPv6 (or IPvFuture) literal host, after an optional userinfo: the only place `[` and `]` belong.
  const authorityEnd = Math.min(text.length, from + 300);
  for (let k = from; k < authorityEnd; k++) {
    const c = text[k]!;
    if (c === '[' && (k === from || text[k - 1] === '@')) {
      const literal = IPV6_LITERAL.exec(text.slice(k, k + 64));
      if (!literal) return k;
      i = k + literal[0].length;
      break;
    }
    if (c === '/' || c === '?' || c === '#' || !URI_ASCII.test(c)) break;
  }
  const limit = Math.min(text.length, from + MAX_URL);
  while (i < limit) {
    const code = text.codePointAt(i)!;
    const c = String.fromCodePoint(code);
    if (code < 0x80 ? !URI_ASCII.test(c) : NOT_IRI.test(c)) break;
    i += c.length;
  }
  return i;
}

/** Drops sentence punctuation from the end; a `)` stays when the URL opened as many `(` as it closes. */
function trimTrailing(text: string, start: number, end: number): number {
  let opened = 0;
  let closed = 0;
  for (let k = start; k < end; k++) {
    if (text[k] === '(') opened++;
    else if (text[k] === ')') closed++;
  }
  while (end > start) {
    const last = text[end - 1]!;
    if (!TRAILING.has(last)) break;
    if (last === ')') {
      if (closed <= opened) break;
      closed--;
    }
    end--;
  }
  return end;
}
