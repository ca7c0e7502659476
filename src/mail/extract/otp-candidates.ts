// The shapes one-time codes take in a line of text, and where each stands: 4–8 digits, digits in 2–4 groups split
// by one space or dash, single digits spaced apart as in table cells, a letter prefix such as `G-123456`, and
// letter-and-digit codes (upper case, or mixed and lower case when a code word names them: see otp.ts).

// Letters of scripts written without spaces (Chinese, Japanese, Korean, Thai) may touch a code: 验证码604829.
export const WORD_CHAR = /(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}])[\p{L}\p{N}_]/u;
// After a number, letters of a script other than Latin, Cyrillic and Greek do not glue it into a word: a template
// wrote the code and the word after it with no space (255866है). Before it they do: a text rendering of a table
// glues a field's label to its value (পিন6620).
const WORD_CHAR_AFTER = /(?![\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Tamil}])\p{L}|\p{N}|_/u;

export interface Found {
  code: string;
  kind: 'digits' | 'split' | 'prefixed' | 'alnum';
  start: number;
  end: number;
  /** A word with a number (qfyjy4, welcome10, Kontor24): a code only where it is set apart under its label. */
  wordLike?: boolean;
}

const NUMBER_RUN = /\d(?:[ -]?\d)*/g;
const ALNUM = /[A-Za-z0-9]{3,10}(?:-[A-Za-z0-9]{2,6})?/g;
const LOWER = /[a-z]/;

export function candidatesOf(line: string): Found[] {
  const found: Found[] = [];
  for (const match of line.matchAll(NUMBER_RUN)) {
    const start = match.index;
    const end = start + match[0].length;
    if (!standsAlone(line, start, end)) continue;
    found.push(...numberCandidates(match[0], start, line));
  }
  for (const match of line.matchAll(ALNUM)) {
    const text = match[0];
    const start = match.index;
    const end = start + text.length;
    if (!/\d/.test(text) || !/[A-Za-z]/.test(text) || text.replace('-', '').length < 4) continue;
    if ((start > 0 && WORD_CHAR.test(line[start - 1]!)) || (end < line.length && WORD_CHAR.test(line[end]!))) continue;
    // One group of a longer dashed chain (a gift-card claim code, a licence key) is not a code of its own.
    if (inChain(line, start, end)) continue;
    if (/^[A-Z]{1,4}-\d{4,8}$/.test(text)) continue; // a prefixed number, taken above
    // A code word glued to its number (PIN5093, OTP482913 where a text rendering lost the space) is the number.
    const glued = /^(?:PIN|OTP|TAN)(\d{4,8})$/i.exec(text);
    if (glued) {
      found.push({ code: glued[1]!, kind: 'digits', start: start + 3, end });
      continue;
    }
    if (LOWER.test(text) && (!codeLike(text) || line[start - 1] === '#')) continue; // #3fa9c2 is a colour
    found.push({ code: text, kind: 'alnum', start, end, wordLike: WORD_WITH_NUMBER.test(text) && VOWEL.test(text) });
  }
  return found;
}

const WORD_WITH_NUMBER = /^[A-Za-z][a-z]+\d+$|^\d+[a-z]+$/;
// A word has a vowel; letters drawn at random often have none (fphzc3, qfyjy4).
const VOWEL = /[aeiou]/i;

/**
 * A code with lower-case letters is at least five characters with two letters and a digit (x7kq2m, ckr6d, Tq8Zp3,
 * 8dC-zYUP); short words with a number (10am, 128gb, win10) are not. "Letters then digits" with a vowel among the
 * letters (welcome10, covid19, but also some codes) is marked `wordLike` and judged by where it stands.
 */
function codeLike(text: string): boolean {
  const plain = text.replace('-', '');
  return plain.length >= 5 && /\d/.test(plain) && (plain.match(/[A-Za-z]/g) ?? []).length >= 2;
}

function inChain(line: string, start: number, end: number): boolean {
  // Groups joined by dashes or dots (a receipt's authentication code: 7F2A.91C0.55DE.30B8).
  return (
    (/[-.]/.test(line[end] ?? '') && /[A-Za-z0-9]/.test(line[end + 1] ?? '')) ||
    (/[-.]/.test(line[start - 1] ?? '') && /[A-Za-z0-9]/.test(line[start - 2] ?? ''))
  );
}

/** Not part of a larger token: no letter, digit, decimal point, slash, colon, plus or currency touching it. */
function standsAlone(line: string, start: number, end: number): boolean {
  const prev = line[start - 1] ?? ' ';
  const prev2 = line[start - 2] ?? ' ';
  const next = line[end] ?? ' ';
  const next2 = line[end + 1] ?? ' ';
  if ((WORD_CHAR.test(next) && WORD_CHAR_AFTER.test(next)) || /[€$£¥₹₽%]/.test(next)) return false;
  if (next === '-' && /[\p{L}\d]/u.test(next2)) return false; // 1234-EFGH: a group of a longer chain
  if (next === '#' || next === '*') return false; // 1955#: keyed in on a door or phone keypad
  if (/[:/]/.test(next) && /\d/.test(next2)) return false; // 14:30, 12/05
  // 49.99, 1,234 (cents and thousands); a full stop or comma of a sentence may touch a digit in CJK text.
  if (/[.,]/.test(next) && /^\d{2,3}(?!\d)/.test(line.slice(end + 1))) return false;
  if (/[€$£¥₹₽+#№*]/.test(prev)) return false; // *4417: the end of a masked card number
  if (/\*[\s\-)*]*$/.test(line.slice(Math.max(0, start - 6), start))) return false; // (***) ***-0172
  if (/[.,:/]/.test(prev) && /\d/.test(prev2)) return false;
  if (prev === '-' && /\d/.test(prev2)) return false;
  if (prev === '-' && /[A-Za-z0-9]-[A-Za-z0-9]+-$/.test(line.slice(Math.max(0, start - 14), start))) return false; // ABCD-EFGH-1234
  if (WORD_CHAR.test(prev) && !(prev === '-' || /[A-Za-z]/.test(prev))) return false;
  if (/[A-Za-z]/.test(prev)) return false;
  return true;
}

function numberCandidates(run: string, start: number, line: string): Found[] {
  const end = start + run.length;
  const digits = run.replace(/[ -]/g, '');
  const groups = run.split(/[ -]/);
  const prefixed = /(?:^|[^\p{L}])[A-Z]{1,4}-$/u.test(line.slice(Math.max(0, start - 6), start));
  if (prefixed && /[#№][A-Z]{1,4}-$/.test(line.slice(Math.max(0, start - 6), start))) return []; // #SR-58213: a ticket
  // Groups after a letter prefix and a dash are an identifier: DOC-2568-0419, INV-2025-0871.
  if (prefixed && groups.length > 1 && run.includes('-')) return [];
  if (groups.length === 1) {
    if (digits.length < 4 || digits.length > 8) return [];
    return [{ code: digits, kind: prefixed ? 'prefixed' : 'digits', start, end }];
  }
  const separators = new Set(run.match(/[ -]/g));
  // 4 to 8 single digits spaced apart (cells of a table, letter-spaced codes).
  if (groups.every((g) => g.length === 1) && groups.length >= 4 && groups.length <= 8 && separators.size === 1) {
    return [{ code: digits, kind: 'split', start, end }];
  }
  // A date written with dashes or spaces (2026-01-19, 19-01-2026) is not a code in groups.
  if (isDate(groups)) return [];
  // Two to four groups of 2–4 digits with one kind of separator: 123 456, 12-34-56, 81 27 45 90.
  if (
    groups.length <= 4 &&
    groups.every((g) => g.length >= 2 && g.length <= 4) &&
    digits.length >= 4 &&
    digits.length <= 8 &&
    separators.size === 1
  ) {
    return [{ code: digits, kind: 'split', start, end }];
  }
  // Anything longer is a phone number, an account, an ID: none of its groups is a code on its own either.
  return [];
}

function isDate(groups: string[]): boolean {
  if (groups.length !== 3) return false;
  const [a, b, c] = groups.map(Number) as [number, number, number];
  const dayMonth = (d: number, m: number) => d >= 1 && d <= 31 && m >= 1 && m <= 12;
  const year = (y: string) => /^(19|20)\d\d$/.test(y);
  if (year(groups[0]!) && groups[1]!.length === 2 && groups[2]!.length === 2) return dayMonth(c, b) || dayMonth(b, c);
  if (year(groups[2]!) && groups[0]!.length <= 2 && groups[1]!.length <= 2) return dayMonth(a, b) || dayMonth(b, a);
  return false;
}

/**
 * Four to eight lines of one digit each, blank lines between them allowed, become one line of spaced digits: a
 * code drawn as a row of boxes that the text conversion put one under another.
 */
export function joinStackedDigits(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const digits: string[] = [];
    let j = i;
    while (j < lines.length && digits.length < 9) {
      const t = lines[j]!.trim();
      if (/^\d$/.test(t)) digits.push(t);
      else if (t !== '') break;
      j++;
    }
    if (digits.length >= 4 && digits.length <= 8) {
      out.push(digits.join(' '));
      i = j - 1;
    } else out.push(lines[i]!);
  }
  return out;
}

/** The candidate is (nearly) all its line holds: a code set apart under its label. */
export function isAlone(line: string, found: Found): boolean {
  // A sender's prefix (G-123456) is part of what is set apart.
  const before = found.kind === 'prefixed' ? line.slice(0, found.start).replace(/[A-Z]{1,4}-$/, '') : line.slice(0, found.start);
  return before.trim().length + line.slice(found.end).trim().length <= 2;
}
