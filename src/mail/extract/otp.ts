// The one-time code of a message, or none. Candidates are the shapes codes take (4–8 digits, digits in 2–4
// groups split by one space or dash, single digits spaced apart as in table cells, a letter prefix such as
// `G-123456`, letter-and-digit codes); each is scored (otp-score.ts) by the words around it — code words in many
// languages raise it, words of orders, invoices, shipping, money, phones, places, meetings and promotions lower
// it — and by what touches it (currency, decimals, dates, times). The best candidate at or above the threshold
// wins. No rule names a sender or a brand: only the language of codes.
import { htmlText, normalise, SENTENCE_MARKS } from './otp-text.ts';
import { candidatesOf, joinStackedDigits } from './otp-candidates.ts';
import { DURATION_WORDS, PURPOSE_WORDS } from './otp-purpose.ts';
import { scoreOf, type Segment } from './otp-score.ts';
import { ACCESS_WORDS, CODE_WORDS, ENTRY_WORDS, labelIn, MEETING_WORDS, OTHER_WORDS, pointsAtSubject } from './otp-words.ts';

/** Bumped whenever the rules change: messages tagged by an older version are looked at again on request. */
export const OTP_DETECTOR_VERSION = 13;

export interface OtpInput {
  subject: string;
  text: string | null;
  html: string | null;
  /** The From address: its domain names the sender, whose name is no word of the message (Kargoist is no cargo). */
  sender?: string;
}

interface Candidate {
  code: string;
  kind: 'digits' | 'split' | 'prefixed' | 'alnum';
  score: number;
  /** Whether its line or the lines over it say what a code is for (asked only to break a tie). */
  purposeNear(): boolean;
}

const THRESHOLD = 3;
const SURE = 5;
/** What a code needs in a message that says nothing of what a code is for. */
const UNASKED = 7;

const DIGIT = /\d/;
// A line that ends a sentence (it leads into nothing below it).
const SENTENCE_CLOSED = new RegExp(`[.${SENTENCE_MARKS}]\\s*$`, 'u');
const ENTITY = /&(?:#\d|#x[0-9a-f]|[a-z]+;)/i;
const TAG = /<[^>]*>/g;

export function detectOtp(input: OtpInput): string | null {
  // Cheapest first: the subject, the text part, and only then the HTML turned into text (the costly step,
  // skipped when a part already gave a sure code, or when the HTML holds no code word, not even one hidden
  // behind an entity such as c&oacute;digo, and the subject names none).
  const read = senderMask(input.sender);
  let subjectLabel: boolean | undefined;
  const subjectNamesCode = () => (subjectLabel ??= labelIn(input.subject));
  const segments: (() => Segment | undefined)[] = [
    () => ({ text: read(input.subject), subject: true, heading: input.subject }),
    () => (input.text ? { text: read(input.text), subject: false, heading: input.subject } : undefined),
    () =>
      input.html && (ENTITY.test(input.html) || CODE_WORDS.test(input.html) || subjectNamesCode())
        ? { text: read(htmlText(input.html)), subject: false, heading: input.subject }
        : undefined,
  ];

  let best: Candidate | undefined;
  for (const next of segments) {
    // The parts mostly repeat each other: once one has given a sure code, the rest is not read.
    if (best && best.score >= SURE) break;
    const segment = next();
    if (!segment) continue;
    // Without a code word anywhere, no candidate of a body can reach the threshold: one scan decides. Or, rarely,
    // a verb of typing and words of signing in, confirming or minutes ("Type Wf8kP2d into the app to confirm"), or a subject
    // that names the code the body asks to type ("Lambar shiga" over "yi amfani da wannan lambar:").
    const asked = (t: string) => ENTRY_WORDS.test(t) && (ACCESS_WORDS.test(t) || DURATION_WORDS.test(t));
    if (!segment.subject && !CODE_WORDS.test(segment.text) && !asked(segment.text)) {
      if (!subjectNamesCode()) continue;
    }
    // Meetings count against a code near them (their passcodes, PINs and IDs), less against one further away; not
    // against one in a line of signing in that names no meeting (a digest's sign-in item under a booked room).
    const meeting = MEETING_WORDS.test(segment.text);
    const calendar = meeting && /begin:vcalendar/i.test(segment.text);
    const lines = joinStackedDigits(segment.text.split('\n'));
    // A body that sends the reader to the subject ("the code is in the subject line") labels what the subject holds,
    // and sets it apart even when the subject names it too ("3jhkcr - код для входа"). Asked only when it can
    // decide: the subject has a candidate and no word of other numbers.
    let named: boolean | undefined;
    const subjectNamed = (line: string) =>
      (named ??=
        segment.subject &&
        candidatesOf(line).length > 0 &&
        !OTHER_WORDS.test(line) &&
        (pointsAtSubject(input.text) || pointsAtSubject(input.html)));
    // Whether a line holds a code word, asked at most once per line (the scan is the costly part).
    const flags: (boolean | undefined)[] = [];
    // A line that asks for something to be typed and ends in a colon labels what is set under it too ("Paste the
    // following into the terminal prompt:").
    const hasCodeWord = (k: number) =>
      (flags[k] ??= CODE_WORDS.test(lines[k]!)
        ? labelIn(lines[k]!)
        : /:\s*$/.test(lines[k]!) && ENTRY_WORDS.test(lines[k]!) && !OTHER_WORDS.test(lines[k]!));
    lines.forEach((line, i) => {
      if (!DIGIT.test(line)) return; // every candidate has a digit
      // Up to two non-empty lines before this one (a label above a big code).
      const above: number[] = [];
      for (let k = i - 1; k >= Math.max(0, i - 4) && above.length < 2; k--) if (lines[k]!.trim() !== '') above.unshift(k);
      const labelAbove = subjectNamed(line) || above.some(hasCodeWord);
      // For a candidate among other words, the label must lead into it: at the end of the line above ("…your
      // password, PIN or OTP" over a footer's postcode does not).
      // A line above that ends a sentence leads into nothing ("…change your password and sign out." over a footer).
      const last = above.at(-1);
      const leadsIn =
        subjectNamed(line) ||
        (last !== undefined && hasCodeWord(last) && !SENTENCE_CLOSED.test(lines[last]!) && labelIn(lines[last]!.slice(-50)));
      // A label above that names another kind of code (your invite code:) decides for a code set under it.
      const otherAbove = !labelAbove && above.some((k) => CODE_WORDS.test(lines[k]!));
      // And the next non-empty line ("This code expires in 10 minutes" under the code).
      let below = i + 1;
      while (below < lines.length && below <= i + 3 && lines[below]!.trim() === '') below++;
      const labelBelow = below < lines.length && below <= i + 3 && hasCodeWord(below);
      if (!segment.subject && !labelAbove && !labelBelow && !hasCodeWord(i) && !asked(line)) return;
      const candidates = candidatesOf(line);
      const before = above.map((k) => lines[k]).join(' \n ');
      const near = meeting && (calendar || MEETING_WORDS.test(lines.slice(Math.max(0, i - 6), i + 1).join('\n')));
      const context = { before, next: lines[i + 1] ?? '' };
      const meetingCost = !meeting || (ACCESS_WORDS.test(line) && !MEETING_WORDS.test(line)) ? 0 : near ? 5 : 2;
      for (const candidate of candidates) {
        const score =
          scoreOf(candidate, line, context, { above: labelAbove, below: labelBelow && !otherAbove, leadsIn }, segment) - meetingCost;
        let purposeFound: boolean | undefined;
        const purposeNear = () => (purposeFound ??= PURPOSE_WORDS.test(`${before}\n${line}`));
        const c = { code: candidate.code, kind: candidate.kind, score, purposeNear };
        // Of two as likely, the first, unless only the other stands where the mail says what a code is for (a code
        // "valid for 10 minutes" over a short code in an SMS gateway's header).
        if (c.score < THRESHOLD) continue;
        if (!best || c.score > best.score || (c.score === best.score && c.code !== best.code && !best.purposeNear() && purposeNear()))
          best = c;
      }
    });
  }
  // A message that speaks of other numbers (orders, money, shipping, bank details) and says nothing of signing in,
  // verifying, one-time use or how long a code lasts is about something else (an invoice's bank code, a shipment's
  // postcode): only a code beyond doubt is taken from it. A bare "Your code is 482913" is still a code.
  if (best && best.score < UNASKED && !best.purposeNear()) {
    const all = `${input.subject}\n${input.text ?? ''}\n${input.html?.replace(TAG, ' ') ?? ''}`;
    if (!PURPOSE_WORDS.test(all) && OTHER_WORDS.test(all)) return null;
  }
  return best?.code ?? null;
}

// Labels of a sender's domain that are not its name (mail.example, no-reply.example, …).
const GENERIC_LABELS =
  /^(?:mail|email|e-mail|mailer|noreply|no-reply|info|news|newsletter|notify|notifications?|alerts?|accounts?|secure|service|support|auth|login|send|bounce|www|app|my|example|test|invalid|localhost)$/;

/**
 * The normalised text, with the sender's name (a label of its From domain) written over by a letter no word list
 * holds: a brand that starts like a word ("Kargoist", "Orderly") must not read as cargo or an order.
 */
function senderMask(sender: string | undefined): (text: string) => string {
  const domain = sender?.split('@')[1]?.toLowerCase() ?? '';
  const names = domain
    .split('.')
    .slice(0, -1)
    .filter((label) => label.length >= 4 && /^[a-z][a-z0-9-]*$/.test(label) && !GENERIC_LABELS.test(label));
  if (names.length === 0) return normalise;
  const name = new RegExp(`(?<![\\p{L}\\p{N}])(?:${names.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  return (text) => normalise(text).replace(name, (m) => 'ǂ'.repeat(m.length));
}
