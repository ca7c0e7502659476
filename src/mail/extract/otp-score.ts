// How much a candidate looks like the message's one-time code, from the words and signs around it: a label (a
// code word) in its sentence or set over it raises it; words of other numbers, qualifiers, brackets, expiry,
// meetings and the shapes of references lower it. See otp.ts for how the candidates and lines are read.
import { type Found, isAlone } from './otp-candidates.ts';
import { DURATION_WORDS } from './otp-purpose.ts';
import { SENTENCE_MARKS } from './otp-text.ts';
import {
  ACCESS_WORDS,
  BOOKING_WORDS,
  CODE_WORDS,
  CONFIRM_WORDS,
  ENTRY_WORDS,
  EXPIRED_WORDS,
  labelIn,
  MONTH_AFTER,
  OTHER_WORDS,
  PASSWORD_WORDS,
  PROMO_WORDS,
} from './otp-words.ts';

/** A part of the message read on its own; `heading` is the message's subject, whichever part this is. */
export interface Segment {
  text: string;
  subject: boolean;
  heading: string;
}

// A full stop ends a sentence before a capital, a letter of a script without case (Korean, Hebrew) or the end;
// not in an abbreviation (kl. 09:14, z. B.).
// Dot leaders and ellipses end nothing (ONE-TIME PASSCODE ... 40718623).
const SENTENCE_END = new RegExp(`[${SENTENCE_MARKS}]|(?<!\\.)\\.(?!\\.)(?=\\s*$|\\s*\\p{Lu}|\\s+\\p{Lo})`, 'u');
const SENTENCE_ENDS = new RegExp(SENTENCE_END.source, 'gu');
// "Is" in the languages of the lists: before a code ("… est : 4821") and after it ("7318 is your code").
const COPULAS = 'is|ist|lautet|est|es|é|è|är|er|adalah|là|jest|je|este|είναι|ni';
const COPULA = new RegExp(`\\s(?:${COPULAS})\\s*:?\\s*$`, 'i');
const COPULA_AFTER = new RegExp(`^\\s*(?:${COPULAS})\\s`, 'i');

/** The part of `left` after its last sentence end: the candidate's own sentence so far. */
function sentenceTail(left: string): string {
  let start = 0;
  for (const m of left.matchAll(SENTENCE_ENDS)) start = m.index + 1;
  return left.slice(start);
}
// Groups of four set apart by one kind of separator, or 13–19 digits; not a reference such as 20250819-3317.
const CARD_NUMBER =
  /(?<!\d)\d{4}([ -])\d{4}(?:\1\d{4}){1,2}(?!\d)|(?<![\dA-Za-z-])\d{13,19}(?!\d)|(?<![A-Z0-9])[A-Z0-9]{4}(?:-[A-Z0-9]{4}){2,}/;
// An account's IBAN, whose groups of four are no card's: DE89 3704 0044 0532 0130 00.
const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,4})?/g;
const CURRENCIES =
  'USD|EUR|GBP|CHF|JPY|CNY|HKD|SGD|AUD|NZD|CAD|INR|IDR|MYR|THB|VND|KRW|TWD|ZAR|NGN|KES|GHS|EGP|AED|SAR|QAR|KWD|TRY|RUB|UAH|' +
  'PLN|CZK|HUF|RON|BGN|SEK|NOK|DKK|ISK|BRL|MXN|ARS|CLP|COP|PEN|PKR|BDT|LKR|NPR|Rp|Rs\\.?|руб\\.?|грн\\.?|lei|Kč|zł|Ft|TL|บาท|円|元|원';
const CURRENCY_BEFORE = new RegExp(`(?:^|[^\\p{L}])(?:${CURRENCIES})\\s?$`, 'u');
const CURRENCY_AFTER = new RegExp(`^\\s?(?:${CURRENCIES})(?![\\p{L}])`, 'u');
const PIN = /(?:^|[^\p{L}])pin(?:-?(?:code|kode|kod|koodi|nummer|number))?(?![\p{Script=Latin}])/iu;
// Capitals right before a number name what it is (NIS 20231047, KRS 0000123456), unless they name a code.
const ABBREVIATION = /(?:^|[^\p{L}])(\p{Lu}{2,6})\s?$/u;
const APPROVED = /approved|aprobad|aprovad|approvat|genehmigt|goedgekeurd|zatwierdzon|одобрен|onaylan/i;
const CODE_ABBREVIATIONS = /^(?:OTP|PIN|TAN|SMS|MFA|TOTP)$/;
// "If the code has expired, ask for a new one" says nothing about the code beside it.
const CONDITIONAL = /(?:^|[^\p{L}])(?:if|when|once|wenn|falls|sobald|si|se|als|jeśli|если|якщо)(?![\p{L}])|如果|もし|만약/iu;

/** The sentence around a candidate says it has expired (and is not a condition). */
function saysExpired(left: string, right: string, next: string): boolean {
  // A sentence may go on to the next line of a text part.
  const sentence = sentenceOf(left, `${right} ${next}`);
  const expired = EXPIRED_WORDS.find(sentence)[0];
  // The condition comes before what it conditions: "ha caducado y ya no se puede usar" is no "if".
  return expired !== undefined && !CONDITIONAL.test(sentence.slice(0, expired[0]));
}

export function scoreOf(
  found: Found,
  line: string,
  { before, next }: { before: string; next: string },
  label: { above: boolean; below: boolean; leadsIn: boolean },
  segment: Segment,
): number {
  const subject = segment.subject;
  const left = line.slice(Math.max(0, found.start - 80), found.start);
  const right = line.slice(found.end, found.end + 60);
  const alone = isAlone(line, found);
  let score = 0;
  // The label must be in the candidate's own sentence ("Your code is inside. Member 40917733." names no code).
  // Or its sentence opens with the label and says the candidate is it: "The One Time Password (OTP) for your
  // transaction … on your card ending 4821 is 604279" (the words between describe the transaction, not the number).
  const opening = COPULA.test(left) ? sentenceTail(line.slice(Math.max(0, found.start - 200), found.start)).trimStart() : '';
  const named = opening !== '' && labelIn(opening.slice(0, 45));
  const labelLeft = labelIn(sentenceTail(left)) || named;
  // A label after it, in its own sentence; or in the next when a verb of typing stands before the candidate
  // ("Enter 3fkR9wz on the confirmation screen. The code is case-sensitive").
  const stop = right.search(SENTENCE_END);
  const entered = ENTRY_WORDS.test(left.slice(-20));
  const labelRight = !labelLeft && labelIn(stop < 0 || entered ? right : right.slice(0, stop));
  // "7318 is your verification code" names it as surely as a label before it.
  const namedAfter = labelRight && COPULA_AFTER.test(right);
  if (labelLeft) score += 4;
  else if (labelRight) score += namedAfter ? 4 : 3;
  else if (label.above && (alone || label.leadsIn)) score += alone ? 4 : 2;
  else if (label.below && alone) score += 3;
  // Other things nearby: on the line itself it weighs most. A code set apart under its label is judged by the
  // label, not by what else the lines around it mention.
  // When the label follows the code ("3000 e-books … with code X"), the whole rest of the line is its context.
  // A subject is short: all of it is the code's context.
  // A subject is short: all of it is the code's context, but for the sender's tag in brackets at its start.
  const context = subject ? `${left.replace(/^\s*\[[^\]]*\]/, '')} ${right}` : `${left.slice(-50)} ${right.slice(0, labelRight ? 60 : 20)}`;
  // The nearest word names a number: a code word right before it outweighs an order further left (예약 변경을 위한
  // 인증번호는 [4015]).
  const nearer = !subject && labelLeft && (named || nearestIsCodeWord(left.slice(-50)));
  if (OTHER_WORDS.test(nearer ? right.slice(0, labelRight ? 60 : 20) : context)) score -= 5;
  // Letter-and-digit codes under an order's or a booking's lines are its references (a PNR, a confirmation code).
  // Unless the text asks for it to be typed ("saisissez le code k3v9xm").
  else if (
    !alone &&
    !entered &&
    !namedAfter &&
    OTHER_WORDS.test(before.slice(-80)) &&
    (!labelLeft || (found.kind === 'alnum' && !ENTRY_WORDS.test(left.slice(-30))))
  )
    score -= 3;
  // A number that annotates a word in brackets is an identifier: (număr client 20931847), (member 40917733).
  // So is one in brackets right after a word: 고객센터(1600-5550), Kundenservice(0800 5550123).
  const annotation = /\(([^()]{2,30})\s$/.exec(left)?.[1] ?? (/^\)/.test(right) ? /(\p{L}{2,30})\($/u.exec(left)?.[1] : undefined);
  if (annotation && !labelIn(annotation)) score -= 3;
  // A number under a code word but with a label of its own that names something else (Request number: 661902).
  // (Not a sender's name before a code its sentence names: "Quokka Pay: 861427 is your verification code".)
  const ownLabel = /^\s*([^\d:：]{2,40})[:：]\s*$/.exec(left)?.[1];
  if (ownLabel && !labelLeft && !labelRight && !CODE_WORDS.test(ownLabel)) score -= 3;
  // A command's option takes it as its value: --ttl 86400.
  if (/(?:^|\s)--?[a-z][\w-]*[ =]$/i.test(left)) score -= 5;
  // Asked to be typed to sign in or confirm, or within minutes, with no word for code at all: "Type Wf8kP2d into the
  // app to confirm this email address", "enter fphzc3 on that device within 20 minutes".
  const asking = () => {
    const sentence = sentenceOf(left, right);
    return ACCESS_WORDS.test(sentence) || DURATION_WORDS.test(sentence);
  };
  const askedFor = entered && !labelLeft && !labelRight && !found.wordLike && found.code.length >= 6 && asking();
  if (askedFor) score += 3;
  if (subject) score += 1;
  // A subject that is a code and words of signing in ("[Brand] 381 264 - sign in").
  if (subject && setApart(left, right) && ACCESS_WORDS.test(line)) score += 2;
  // An amount: a currency's code or word beside it (15 000 руб., USD 12450, 250 lei).
  if (CURRENCY_BEFORE.test(left) || CURRENCY_AFTER.test(right)) score -= 5;
  // A phone number after its area code in brackets: (305) 555-0128.
  if (/\(\d{2,5}\)\s?$/.test(left)) score -= 5;
  const abbreviation = ABBREVIATION.exec(left)?.[1];
  // In a line of capitals only short ones count: a flight (CP 3418 LIS → OTP), not a label (YOUR CODE 4821).
  if (
    found.kind !== 'alnum' &&
    abbreviation &&
    !CODE_ABBREVIATIONS.test(abbreviation) &&
    (/\p{Ll}/u.test(left.slice(-40)) || (abbreviation.length <= 3 && !CODE_WORDS.test(abbreviation)))
  )
    score -= 3;
  // A range of days before a month: 25-27 Juni.
  if (found.kind === 'split' && found.code.length <= 4 && MONTH_AFTER.test(right)) score -= 5;
  if (saysExpired(left, line.slice(found.end, found.end + 200), next)) score -= 6;
  // A PIN printed with a card or voucher number belongs to that card (gift cards, prepaid cards), whatever word
  // names it as its password (Şifre: 7742), unless it is a code of signing in or confirming.
  const cardCode = (t: string) => (PIN.test(t) || PASSWORD_WORDS.test(t)) && !/one[- ]time|otp/i.test(t) && !ACCESS_WORDS.test(t);
  if (
    (cardCode(left.slice(-25)) || (alone && cardCode(before.slice(-25)))) &&
    CARD_NUMBER.test(`${before.slice(-160)} ${left}`.replace(IBAN, ' '))
  )
    score -= 5;
  // A booking's confirmation number, in its list of fields (■予約番号：RS48120 over ■確認番号：7305).
  if (
    labelLeft &&
    BOOKING_WORDS.test(before.slice(-80)) &&
    CONFIRM_WORDS.test(left.slice(-25)) &&
    !/verif|authent|one[- ]time|otp|인증|認証|验证|驗證/i.test(left.slice(-25))
  )
    score -= 4;
  // A number wrapped onto its own line, the rest of one at the end of the long line above: "…numero verde 800" /
  // "555 014." (a short line above is a field of its own: ปีภาษี 2568).
  const above = before.slice(before.lastIndexOf('\n') + 1).trim();
  // So is one under the long line's last word that names a number (…Madrid · CIF / B-87441120).
  if (alone && above.length >= 50 && (/\s\d{2,5}$/.test(above) || (!/[:：]$/.test(above) && OTHER_WORDS.test(above.slice(-8))))) score -= 4;
  // An Indian postcode in an address: "…, Karnataka, PIN code 560102".
  if (/,\s*pin\s?(?:code)?[\s:-]*$/i.test(left) && found.code.length === 6) score -= 5;
  // An authorisation code of a purchase already approved: a card slip, not a code to type.
  if (/autori[sz]|authori[sz]/i.test(left.slice(-30)) && APPROVED.test(line.slice(0, found.start))) score -= 5;
  // A US ZIP code on its own line, under its town and state: "Newark, NJ" / "07102".
  if (alone && /,\s[A-Z]{2}\s*$/.test(before) && /^\d{5}$/.test(found.code)) score -= 5;
  // A postcode between an address and its town: "ul. Składowa 12, 61-897 Poznań", "Rīga, LV-1010".
  if (/,\s(?:[A-Z]{2}-)?$/.test(left) && (found.kind === 'prefixed' || /^\s\p{Lu}\p{Ll}/u.test(right))) score -= 5;
  // A British or Canadian postcode: London EC2A 2FA, Ottawa K1A 0B1 (its second half even reads as "2FA").
  if (/^[A-Z]{1,2}\d[A-Z\d]?$/.test(found.code) && /^\s\d[A-Z]{2}(?![A-Za-z0-9])/.test(right)) score -= 5;
  if (/^[A-Z]\d[A-Z]$/.test(found.code) && /^\s\d[A-Z]\d(?![A-Za-z0-9])/.test(right)) score -= 5;
  // A year, unless a code word stands right before it ("Ihr Code lautet 1937").
  if (found.kind === 'digits' && /^(19|20)\d\d$/.test(found.code) && !labelIn(left.slice(-15))) score -= 3;
  // Six digits, the commonest length of a one-time code, however they are grouped (739 205).
  if ((found.kind === 'digits' || found.kind === 'split') && found.code.length === 6) score += 1;
  if (found.kind === 'prefixed') score += 1;
  if (found.kind === 'alnum') {
    // Letter-and-digit codes need the word right beside them, and not a word that looks like one (SAVE20).
    // A code named from the body (subject) counts as set apart under its label.
    // A lower-case one only with the word before it, unless it starts the line ("x7kq2m is your code"): a hash or
    // an ID in a sentence about codes ("commit a3f9c21 fixes the login code page") is not one.
    const lower = !/[A-Z]/.test(found.code);
    const setUnder = (alone || (subject && label.above)) && (label.above || label.below);
    // Or a code word and a verb of typing after it, where the verb comes last (app मा r7kq4d code टाइप गर्नुहोस्).
    const typedAfter = () => {
      const stop = right.search(SENTENCE_END);
      return labelIn(right.slice(0, 30)) && ENTRY_WORDS.test(stop < 0 ? right : right.slice(0, stop));
    };
    const labelled =
      labelIn(left.slice(-40)) ||
      named ||
      ((!lower || left.trim() === '') && labelIn(right.slice(0, 30))) ||
      (lower && typedAfter()) ||
      setUnder ||
      (entered && labelRight) ||
      askedFor;
    if (!labelled) score -= 3;
    // SAVE20, SALE50K (50 thousand); not a login code's capitals ("FQZLA9 is your login code").
    if (/^[A-Z]{3,}\d{1,3}K?$/.test(found.code) && !(ACCESS_WORDS.test(line) && !PROMO_WORDS.test(segment.text))) score -= 3;
    // A word with a number is a code set apart under its label, or asked to be typed right after its code word
    // ("introduza o código bupd38 na app"); under words of a promotion it is the promotion's (welcome10).
    if (found.wordLike) {
      // Typed with the verb before it, or after it where the verb comes last (کوڈ 36tuaj درج کریں).
      const stop = right.search(/[,.،۔。]/u);
      const clause = stop < 0 ? right.slice(0, 30) : right.slice(0, stop);
      const typed = labelIn(left.slice(-25)) && (ENTRY_WORDS.test(`${before} ${left}`.slice(-45)) || ENTRY_WORDS.test(clause));
      if (PROMO_WORDS.test(`${before}\n${line}`) || !(setUnder || typed)) score -= 10;
    }
    // Made of a word of the message (the reader's name: ELSA-3K9P, rafael7k2; the subject's sale: SALE1111) or of a
    // year (tet2025vn): chosen to be remembered, as referral and promotion codes are; generated codes are not.
    if (
      spellsWord(found.code, `${segment.text}\n${segment.heading}`) ||
      (/(?:19|20)\d\d/.test(found.code) && (found.code.match(/[A-Za-z]/g) ?? []).length >= 3)
    )
      score -= 4;
  }
  return score;
}

/** Nothing but separators between the candidate and either end of its line: `[Brand] 381 264 - sign in`. */
function setApart(left: string, right: string): boolean {
  return /(?:^|[\]:|\-–—])\s*$/.test(left) && /^\s*(?:$|[:|\-–—(])/.test(right);
}

function spellsWord(code: string, text: string): boolean {
  const runs = code.match(/[A-Za-z]{4,}/g);
  if (!runs) return false;
  const rest = text.replaceAll(code, ' ');
  // The start of a word will do: VALEN7K2 for Valentina. So will a name the code starts with (annaf-2k9 for Anna),
  // or two words of the message written as one (bunvenit10 for "bun venit").
  return runs.some((run) => new RegExp(`(?<![\\p{L}])${run}`, 'iu').test(rest) || startsWithName(run, rest) || twoWords(run, rest));
}

function twoWords(run: string, text: string): boolean {
  for (let k = 2; k <= run.length - 2; k++) {
    if (new RegExp(`(?<![\\p{L}])${run.slice(0, k)}\\s+${run.slice(k)}(?![\\p{L}])`, 'iu').test(text)) return true;
  }
  return false;
}

/** The letters start with a capitalised word of the text, of four letters or more: a name. */
function startsWithName(run: string, text: string): boolean {
  for (let k = run.length - 1; k >= 4; k--) {
    const name = run[0]!.toUpperCase() + run.slice(1, k).toLowerCase();
    if (new RegExp(`(?<![\\p{L}])${name}(?![\\p{L}])`, 'u').test(text)) return true;
  }
  return false;
}

function sentenceOf(left: string, right: string): string {
  const stop = right.search(SENTENCE_END);
  return `${sentenceTail(left)} ${stop < 0 ? right : right.slice(0, stop)}`;
}

function nearestIsCodeWord(left: string): boolean {
  const code = Math.max(-1, ...CODE_WORDS.find(left).map(([, end]) => end));
  const other = Math.max(-1, ...OTHER_WORDS.find(left).map(([, end]) => end));
  return code > other;
}
