// The one-time code of a message, or none. Candidates are the shapes codes take (4–8 digits, digits in 2–4
// groups split by one space or dash, single digits spaced apart as in table cells, a letter prefix such as
// `G-123456`, upper-case letter-and-digit codes); each is scored by the words around it — code words in many
// languages raise it, words of orders, invoices, shipping, money, phones, places, meetings and promotions lower
// it — and by what touches it (currency, decimals, dates, times). The best candidate at or above the threshold
// wins. No rule names a sender or a brand: only the language of codes.
import { convert } from 'html-to-text';

/** Bumped whenever the rules change: messages tagged by an older version are looked at again on request. */
export const OTP_DETECTOR_VERSION = 1;

export interface OtpInput {
  subject: string;
  text: string | null;
  html: string | null;
}

interface Candidate {
  code: string;
  kind: 'digits' | 'split' | 'prefixed' | 'alnum';
  score: number;
  order: number;
}

const THRESHOLD = 3;

// Words that say "here is a code": stems matched inside compounds (Bestätigungscode, verificatiecode, kodu).
const CODE_WORDS = words(
    'codes?\\b', '\\p{L}*code\\p{L}*', 'passcode', 'pin\\b', 'otp', 'one[- ]time', '2fa', 'two[- ]factor', 'verif\\p{L}*', 'authenticat\\p{L}*',
    'token', 'tan\\b', 'einmal\\p{L}*', 'bestätig\\p{L}*', 'sicherheits\\p{L}*', 'anmelde\\p{L}*', 'kennwort',
    'c[oó]digo', 'codice', 'clave', 'senha', 'contrase[ñn]a', 'mot de passe', 'usage unique', 'uso [úu]nico', 'monouso',
    'kod\\p{L}*', 'kód\\p{L}*', 'weryfikac\\p{L}*', 'jednorazow\\p{L}*', 'ověřovací', 'doğrulama', 'şifre', 'engångs\\p{L}*',
    'код\\p{L}*', 'подтвержд\\p{L}*', 'проверочн\\p{L}*', 'одноразов\\p{L}*', 'пароль',
    'κωδικ\\p{L}*', 'رمز', 'كود', 'التحقق', 'कोड', 'ओटीपी', 'mã', 'รหัส',
    'コード', '認証', '確認番号', '暗証番号', 'ワンタイム', 'パスコード', 'ログイン',
    '验证码', '驗證碼', '校验码', '校驗碼', '动态码', '確認碼', '确认码', '验证', '驗證',
    '인증', '코드', '보안',
);

// Words that say "this number is something else". Matched anywhere in the candidate's surroundings.
const OTHER_WORDS = words(
    // orders, invoices, customers, references, bookings, tickets
    'order', 'bestell\\p{L}*', 'commande', 'pedido', 'ordine', 'zamówien\\p{L}*', 'заказ\\p{L}*', 'sipariş\\p{L}*', 'objednáv\\p{L}*', 'beställ\\p{L}*',
    'invoice', 'rechnung', 'factur\\p{L}*', 'fattura', 'faktur\\p{L}*', 'счёт', 'счет', 'fatura', '請求', '发票', '發票', '청구', '영수증',
    'receipt', 'quittung', 'reçu', 'recibo', 'ricevuta', 'kwit\\p{L}*', 'чек',
    'customer', 'kunden\\p{L}*', 'client', 'cliente', 'klant\\p{L}*', 'klient\\p{L}*', 'account (?:number|no|ending)', 'konto\\p{L}*', 'compte', 'cuenta', 'conta\\b',
    'reference', 'referenz', 'référence', 'referencia', 'riferimento', 'referentie', 'ticket', 'case', 'booking', 'buchung', 'réservation', 'reserva', 'prenotazione', 'reservering', 'rezerwac\\p{L}*', 'бронирован\\p{L}*',
    'iban', 'bic', 'swift', 'card ending', 'endet auf', 'ending in',
    // shipping
    'tracking', 'sendung\\p{L}*', 'paket\\p{L}*', 'parcel', 'package', 'shipment', 'shipping', 'versand\\p{L}*', 'suivi', 'colis', 'seguimiento', 'envío', 'rastreamento', 'spedizion\\p{L}*', 'zending', 'przesyłk\\p{L}*', 'отслежива\\p{L}*', 'посылк\\p{L}*', 'kargo', '追跡', '配送', '快递', '物流', '运单', '배송', '송장',
    // money
    'total', 'amount', 'price', 'betrag', 'summe', 'preis', 'montant', 'prix', 'importe', 'precio', 'valor', 'prezzo', 'importo', 'bedrag', 'prijs', 'kwota', 'cena', 'сумм\\p{L}*', 'цена', 'tutar', 'fiyat', '金額', '金额', '价格', '금액', '가격',
    // phones and places
    'phone', 'tel\\b', 'tel\\.', 'fax', 'telef\\p{L}*', 'téléphone', 'телефон', '電話', '电话', '전화', 'hotline', 'call us', 'whatsapp',
    'postal', 'zip', 'plz', 'postleitzahl', 'cep\\b', 'indirizzo', 'address', 'adresse', 'dirección', 'endereço', 'straße', 'strasse', 'street', 'suite',
    // promotions
    'promo\\p{L}*', 'coupon', 'voucher', 'discount', 'gutschein\\p{L}*', 'rabatt\\p{L}*', 'rabais', 'réduction', 'descuento', 'cupón', 'cupom', 'desconto', 'sconto', 'korting', 'kupon', 'rabat\\p{L}*', 'скидк\\p{L}*', 'промокод', 'indirim', '割引', 'クーポン', '优惠', '折扣', '할인', '쿠폰', '% off', '\\d+\\s?%',
);

// Meetings and dial-ins: their PINs and passcodes are codes of a kind, but not one-time codes to sign in with.
// Anywhere in the same part of the message, they count against every candidate.
const MEETING_WORDS = words(
  'meeting', 'dial[- ]in', 'conference', 'webinar', 'participant', 'besprechung', 'konferenz', 'teilnehm\\p{L}*', 'einwahl\\p{L}*',
  'réunion', 'reunión', 'reunião', 'riunione', 'vergadering', 'spotkani\\p{L}*', 'встреч\\p{L}*', 'конференц\\p{L}*', 'toplantı',
  'möte', 'schůzk\\p{L}*', '会議', '会议', '會議', '회의', 'BEGIN:VCALENDAR',
);

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** One pattern of alternatives; those in alphabetic scripts must start a word (pin, not spinning). */
function words(...alternatives: string[]): RegExp {
  const bounded = alternatives.map((a) => (/^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u.test(a) ? `(?<!\\p{L})(?:${a})` : `(?:${a})`));
  return new RegExp(bounded.join('|'), 'iu');
}

export function detectOtp(input: OtpInput): string | null {
  const segments: { text: string; subject: boolean }[] = [{ text: normalise(input.subject), subject: true }];
  const fromHtml = input.html ? normalise(htmlText(input.html)) : '';
  const fromText = input.text ? normalise(input.text) : '';
  if (fromHtml) segments.push({ text: fromHtml, subject: false });
  if (fromText && fromText !== fromHtml) segments.push({ text: fromText, subject: false });

  let best: Candidate | undefined;
  let order = 0;
  for (const segment of segments) {
    const meeting = MEETING_WORDS.test(segment.text);
    const lines = segment.text.split('\n');
    lines.forEach((line, i) => {
      // The line itself, and up to two non-empty lines before it (a label above a big code).
      const before = lines.slice(Math.max(0, i - 3), i).filter((l) => l.trim() !== '').slice(-2).join(' \n ');
      for (const candidate of candidatesOf(line)) {
        const score = scoreOf(candidate, line, before, segment.subject) - (meeting ? 5 : 0);
        const c = { code: candidate.code, kind: candidate.kind, score, order: order++ };
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

const NUMBER_RUN = /\d(?:[ \-]?\d)*/g;
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
  const digits = run.replace(/[ \-]/g, '');
  const groups = run.split(/[ \-]/);
  const prefixed = /(?:^|[^\p{L}])[A-Z]{1,4}-$/u.test(line.slice(Math.max(0, start - 6), start));
  if (groups.length === 1) {
    if (digits.length < 4 || digits.length > 8) return [];
    return [{ code: digits, kind: prefixed ? 'prefixed' : 'digits', start, end }];
  }
  const separators = new Set(run.match(/[ \-]/g));
  // 4 to 8 single digits spaced apart (cells of a table, letter-spaced codes).
  if (groups.every((g) => g.length === 1) && groups.length >= 4 && groups.length <= 8 && separators.size === 1) {
    return [{ code: digits, kind: 'split', start, end }];
  }
  // Two or three groups of 2–4 digits with one kind of separator: 123 456, 12-34-56.
  if (groups.length <= 3 && groups.every((g) => g.length >= 2 && g.length <= 4) && digits.length >= 4 && digits.length <= 8 && separators.size === 1) {
    return [{ code: digits, kind: 'split', start, end }];
  }
  // Anything longer is a phone number, an account, an ID: none of its groups is a code on its own either.
  return [];
}

// ------------------------------------------------------------------------------------------------ scoring

function scoreOf(found: Found, line: string, before: string, subject: boolean): number {
  const left = line.slice(Math.max(0, found.start - 80), found.start);
  const right = line.slice(found.end, found.end + 60);
  let score = 0;
  if (CODE_WORDS.test(left)) score += 4;
  else if (CODE_WORDS.test(right)) score += 3;
  else if (CODE_WORDS.test(before)) score += isAlone(line, found) ? 4 : 2;
  // Other things nearby: on the line itself it weighs most.
  const near = `${left.slice(-50)} ${right.slice(0, 30)}`;
  if (OTHER_WORDS.test(near)) score -= 5;
  else if (OTHER_WORDS.test(before.slice(-80)) && !CODE_WORDS.test(left)) score -= 3;
  if (subject) score += 1;
  if (found.kind === 'digits' && /^(19|20)\d\d$/.test(found.code)) score -= 3; // a year
  if (found.kind === 'digits' && found.code.length === 6) score += 1;
  if (found.kind === 'prefixed') score += 1;
  if (found.kind === 'alnum') {
    // Letter-and-digit codes need the word right beside them, and not a word that looks like one (SAVE20).
    const labelled = CODE_WORDS.test(left.slice(-40)) || CODE_WORDS.test(right.slice(0, 30)) || (isAlone(line, found) && CODE_WORDS.test(before));
    if (!labelled) score -= 3;
    if (/^[A-Z]{3,}\d{1,3}$/.test(found.code)) score -= 3;
  }
  return score;
}

/** The candidate is (nearly) all its line holds: a code set apart under its label. */
function isAlone(line: string, found: Found): boolean {
  return line.slice(0, found.start).trim().length + line.slice(found.end).trim().length <= 2;
}

// ------------------------------------------------------------------------------------------------ text

const HTML_OPTIONS = {
  wordwrap: false as const,
  formatters: {
    // Table cells side by side stay on one line, a space apart (a code split across cells reads 4 8 2 9 1 3).
    cell: (elem: { children: unknown[] }, walk: (nodes: unknown[], builder: unknown) => void, builder: { addInline(text: string): void }) => {
      walk(elem.children, builder);
      builder.addInline('\u2002');
    },
  },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'table', format: 'block' },
    { selector: 'tbody', format: 'block' },
    { selector: 'thead', format: 'block' },
    { selector: 'tr', format: 'block' },
    { selector: 'td', format: 'cell' },
    { selector: 'th', format: 'cell' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
};

function htmlText(html: string): string {
  try {
    return convert(html, HTML_OPTIONS as never);
  } catch {
    return html.replace(/<[^>]*>/g, ' ');
  }
}

/** Full-width digits to ASCII, every space alike, invisible characters and links out (their digits are not codes). */
function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/https?:\/\/\S+|www\.\S+|\S+@\S+\.\S+/gi, ' ')
    .replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, '')
    .replace(/[^\S\n]+/g, ' ');
}
