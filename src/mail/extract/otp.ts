// The one-time code of a message, or none. Candidates are the shapes codes take (4–8 digits, digits in 2–4
// groups split by one space or dash, single digits spaced apart as in table cells, a letter prefix such as
// `G-123456`, upper-case letter-and-digit codes); each is scored by the words around it — code words in many
// languages raise it, words of orders, invoices, shipping, money, phones, places, meetings and promotions lower
// it — and by what touches it (currency, decimals, dates, times). The best candidate at or above the threshold
// wins. No rule names a sender or a brand: only the language of codes.
import { htmlText, normalise } from './otp-text.ts';
import { CODE_WORDS, EXPIRED_WORDS, labelIn, MEETING_WORDS, OTHER_WORDS } from './otp-words.ts';

/** Bumped whenever the rules change: messages tagged by an older version are looked at again on request. */
export const OTP_DETECTOR_VERSION = 3;

export interface OtpInput {
  subject: string;
  text: string | null;
  html: string | null;
}

interface Candidate {
  code: string;
  kind: 'digits' | 'split' | 'prefixed' | 'alnum';
  score: number;
}

const THRESHOLD = 3;
const SURE = 5;

// Letters of scripts written without spaces (Chinese, Japanese, Korean, Thai) may touch a code: 验证码604829.
const WORD_CHAR = /(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}])[\p{L}\p{N}_]/u;
const DIGIT = /\d/;
const ENTITY = /&(?:#\d|#x[0-9a-f]|[a-z]+;)/i;

export function detectOtp(input: OtpInput): string | null {
  // Cheapest first: the subject, the text part, and only then the HTML turned into text (the costly step,
  // skipped when a part already gave a sure code, or when the HTML holds no code word, not even one hidden
  // behind an entity such as c&oacute;digo).
  const segments: (() => { text: string; subject: boolean } | undefined)[] = [
    () => ({ text: normalise(input.subject), subject: true }),
    () => (input.text ? { text: normalise(input.text), subject: false } : undefined),
    () =>
      input.html && (ENTITY.test(input.html) || CODE_WORDS.test(input.html))
        ? { text: normalise(htmlText(input.html)), subject: false }
        : undefined,
  ];

  let best: Candidate | undefined;
  for (const next of segments) {
    // The parts mostly repeat each other: once one has given a sure code, the rest is not read.
    if (best && best.score >= SURE) break;
    const segment = next();
    if (!segment) continue;
    // Without a code word anywhere, no candidate of a body can reach the threshold: one scan decides.
    if (!segment.subject && !CODE_WORDS.test(segment.text)) continue;
    const meeting = MEETING_WORDS.test(segment.text);
    const lines = joinStackedDigits(segment.text.split('\n'));
    // Whether a line holds a code word, asked at most once per line (the scan is the costly part).
    const flags: (boolean | undefined)[] = [];
    const hasCodeWord = (k: number) => (flags[k] ??= CODE_WORDS.test(lines[k]!) && labelIn(lines[k]!));
    lines.forEach((line, i) => {
      if (!DIGIT.test(line)) return; // every candidate has a digit
      // Up to two non-empty lines before this one (a label above a big code).
      const above: number[] = [];
      for (let k = i - 1; k >= Math.max(0, i - 4) && above.length < 2; k--) if (lines[k]!.trim() !== '') above.unshift(k);
      const labelAbove = above.some(hasCodeWord);
      // A label above that names another kind of code (your invite code:) decides for a code set under it.
      const otherAbove = !labelAbove && above.some((k) => CODE_WORDS.test(lines[k]!));
      // And the next non-empty line ("This code expires in 10 minutes" under the code).
      let below = i + 1;
      while (below < lines.length && below <= i + 3 && lines[below]!.trim() === '') below++;
      const labelBelow = below < lines.length && below <= i + 3 && hasCodeWord(below);
      if (!segment.subject && !labelAbove && !labelBelow && !hasCodeWord(i)) return;
      const candidates = candidatesOf(line);
      const before = above.map((k) => lines[k]).join(' \n ');
      for (const candidate of candidates) {
        const score =
          scoreOf(candidate, line, before, { above: labelAbove, below: labelBelow && !otherAbove }, segment.subject) - (meeting ? 5 : 0);
        const c = { code: candidate.code, kind: candidate.kind, score };
        if (c.score >= THRESHOLD && (!best || c.score > best.score)) best = c;
      }
    });
  }
  return best?.code ?? null;
}

// ------------------------------------------------------------------------------------------------ candidates

interface Found {
  code: string;
  kind: Candidate['kind'];
  start: number;
  end: number;
}

const NUMBER_RUN = /\d(?:[ -]?\d)*/g;
const ALNUM = /[A-Z0-9]{3,10}(?:-[A-Z0-9]{3,6})?/g;

function candidatesOf(line: string): Found[] {
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
    if (!/\d/.test(text) || !/[A-Z]/.test(text) || text.replace('-', '').length < 4) continue;
    if ((start > 0 && WORD_CHAR.test(line[start - 1]!)) || (end < line.length && WORD_CHAR.test(line[end]!))) continue;
    if (/^[A-Z]{1,4}-\d{4,8}$/.test(text)) continue; // a prefixed number, taken above
    found.push({ code: text, kind: 'alnum', start, end });
  }
  return found;
}

/** Not part of a larger token: no letter, digit, decimal point, slash, colon, plus or currency touching it. */
function standsAlone(line: string, start: number, end: number): boolean {
  const prev = line[start - 1] ?? ' ';
  const prev2 = line[start - 2] ?? ' ';
  const next = line[end] ?? ' ';
  const next2 = line[end + 1] ?? ' ';
  if (WORD_CHAR.test(next) || /[€$£¥₹₽%]/.test(next)) return false;
  if (/[:/]/.test(next) && /\d/.test(next2)) return false; // 14:30, 12/05
  // 49.99, 1,234 (cents and thousands); a full stop or comma of a sentence may touch a digit in CJK text.
  if (/[.,]/.test(next) && /^\d{2,3}(?!\d)/.test(line.slice(end + 1))) return false;
  if (/[€$£¥₹₽+#№]/.test(prev)) return false;
  if (/[.,:/]/.test(prev) && /\d/.test(prev2)) return false;
  if (prev === '-' && /\d/.test(prev2)) return false;
  if (WORD_CHAR.test(prev) && !(prev === '-' || /[A-Za-z]/.test(prev))) return false;
  if (/[A-Za-z]/.test(prev)) return false;
  return true;
}

function numberCandidates(run: string, start: number, line: string): Found[] {
  const end = start + run.length;
  const digits = run.replace(/[ -]/g, '');
  const groups = run.split(/[ -]/);
  const prefixed = /(?:^|[^\p{L}])[A-Z]{1,4}-$/u.test(line.slice(Math.max(0, start - 6), start));
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

// ------------------------------------------------------------------------------------------------ scoring

const SENTENCE_END = /[.!?。！？]/;
const CARD_NUMBER = /(?<!\d)\d{4}(?:[ -]?\d{4}){2,3}(?!\d)|(?<!\d)\d{13,19}(?!\d)/;
// "If the code has expired, ask for a new one" says nothing about the code beside it.
const CONDITIONAL = /(?:^|[^\p{L}])(?:if|when|once|wenn|falls|sobald|si|se|als|jeśli|если|якщо)(?![\p{L}])|如果|もし|만약/iu;

/** The sentence around a candidate says it has expired (and is not a condition). */
function saysExpired(left: string, right: string): boolean {
  const ends = [...left.matchAll(new RegExp(SENTENCE_END.source, 'g'))];
  const start = ends.length ? ends.at(-1)!.index + 1 : 0;
  const stop = right.search(SENTENCE_END);
  const sentence = `${left.slice(start)} ${stop < 0 ? right : right.slice(0, stop)}`;
  return EXPIRED_WORDS.test(sentence) && !CONDITIONAL.test(sentence);
}

function scoreOf(found: Found, line: string, before: string, label: { above: boolean; below: boolean }, subject: boolean): number {
  const left = line.slice(Math.max(0, found.start - 80), found.start);
  const right = line.slice(found.end, found.end + 60);
  const alone = isAlone(line, found);
  let score = 0;
  const labelLeft = labelIn(left);
  const labelRight = !labelLeft && labelIn(right);
  if (labelLeft) score += 4;
  else if (labelRight) score += 3;
  else if (label.above) score += alone ? 4 : 2;
  else if (label.below && alone) score += 3;
  // Other things nearby: on the line itself it weighs most. A code set apart under its label is judged by the
  // label, not by what else the lines around it mention.
  // When the label follows the code ("3000 e-books … with code X"), the whole rest of the line is its context.
  if (OTHER_WORDS.test(`${left.slice(-50)} ${right.slice(0, labelRight ? 60 : 20)}`)) score -= 5;
  else if (!alone && OTHER_WORDS.test(before.slice(-80)) && !labelLeft) score -= 3;
  if (subject) score += 1;
  if (saysExpired(left, right)) score -= 6;
  // A PIN printed with a card or voucher number belongs to that card (gift cards, prepaid cards).
  if (/(?:^|[^\p{L}])pin(?![\p{L}])/iu.test(left.slice(-25)) && CARD_NUMBER.test(`${before.slice(-160)} ${left}`)) score -= 5;
  // A year, unless a code word stands right before it ("Ihr Code lautet 1937").
  if (found.kind === 'digits' && /^(19|20)\d\d$/.test(found.code) && !labelIn(left.slice(-25))) score -= 3;
  if (found.kind === 'digits' && found.code.length === 6) score += 1;
  if (found.kind === 'prefixed') score += 1;
  if (found.kind === 'alnum') {
    // Letter-and-digit codes need the word right beside them, and not a word that looks like one (SAVE20).
    const labelled = labelIn(left.slice(-40)) || labelIn(right.slice(0, 30)) || (alone && (label.above || label.below));
    if (!labelled) score -= 3;
    if (/^[A-Z]{3,}\d{1,3}$/.test(found.code)) score -= 3;
  }
  return score;
}

/**
 * Four to eight lines of one digit each, blank lines between them allowed, become one line of spaced digits: a
 * code drawn as a row of boxes that the text conversion put one under another.
 */
function joinStackedDigits(lines: string[]): string[] {
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
function isAlone(line: string, found: Found): boolean {
  // A sender's prefix (G-123456) is part of what is set apart.
  const before = found.kind === 'prefixed' ? line.slice(0, found.start).replace(/[A-Z]{1,4}-$/, '') : line.slice(0, found.start);
  return before.trim().length + line.slice(found.end).trim().length <= 2;
}
