// A received message's readable parts, from its raw bytes with mailparser. Nothing here may lose mail: whatever
// cannot be parsed is left empty and named in `parseError`, and the raw bytes are stored regardless.
import libmime from 'libmime';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { NewMessage } from '../store/index.ts';

/** The fields of a stored message that come from its bytes, and the text its sender wrote (not stored). */
export type ParsedMessage = Pick<
  NewMessage,
  'fromAddress' | 'subject' | 'bodyText' | 'bodyHtml' | 'headers' | 'attachments' | 'parseError'
> & {
  /**
   * The message's own text/plain parts; null when it has none. `bodyText` is mailparser's text, which for a
   * message without a text part (and for an HTML part beside one outside multipart/alternative) is made from
   * the HTML: good to read, but not what the sender wrote, so no source of links.
   */
  plainText: string | null;
};

// Text is not turned into HTML (body_html stays null when the message has none).
const OPTIONS = { skipTextToHtml: true, skipImageLinks: true } as const;

export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  let mail: ParsedMail;
  try {
    mail = await simpleParser(raw, OPTIONS);
  } catch (err) {
    const parseError = describe(err);
    return { fromAddress: '', subject: '', bodyText: null, bodyHtml: null, plainText: null, headers: {}, attachments: [], parseError };
  }
  return {
    fromAddress: clean(mail.from?.value.find((a) => a.address)?.address ?? ''),
    subject: clean(mail.subject ?? ''),
    bodyText: mail.text === undefined ? null : clean(mail.text),
    bodyHtml: typeof mail.html === 'string' ? clean(mail.html) : null,
    plainText: await plainTextOf(raw, mail),
    headers: headersOf(mail),
    attachments: mail.attachments.map((a) => ({
      filename: a.filename === undefined ? null : clean(a.filename),
      size: a.size,
      content_type: clean(a.contentType),
    })),
    parseError: mail.textConversionError ? describe(mail.textConversionError) : null,
  };
}

/**
 * The text of the message's text/plain parts. mailparser turns an HTML part into text when the message is
 * that part alone, or when it stands beside a text part outside multipart/alternative; its `text` is then
 * partly or wholly made. Which is known from the top: a message without HTML, or one that is
 * multipart/alternative, has only real text; an HTML message has none. Only for other multiparts with both
 * (multipart/mixed, related, …) is the message read again without that conversion.
 */
async function plainTextOf(raw: Buffer, mail: ParsedMail): Promise<string | null> {
  if (mail.text === undefined || !mail.text.trim()) return null;
  if (typeof mail.html !== 'string') return clean(mail.text);
  const type = mail.headers.get('content-type');
  const top = (typeof type === 'object' && type !== null && 'value' in type ? String(type.value) : 'text/plain').toLowerCase();
  if (top === 'text/html') return null;
  if (top === 'multipart/alternative') return clean(mail.text);
  try {
    const own = (await simpleParser(raw, { ...OPTIONS, skipHtmlToText: true, checksumAlgo: false })).text;
    return own?.trim() ? clean(own) : null;
  } catch {
    return null;
  }
}

function headersOf(mail: ParsedMail): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { key, line } of mail.headerLines) {
    const colon = line.indexOf(':');
    const folded = colon < 0 ? '' : line.slice(colon + 1);
    const value = clean(decodeWords(folded.replace(/\r?\n[ \t]/g, ' ').trim()));
    const name = clean(key.toLowerCase());
    headers[name] = name in headers ? `${headers[name]}\n${value}` : value;
  }
  return headers;
}

function decodeWords(value: string): string {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

/** PostgreSQL text and jsonb cannot hold NUL; a hostile or broken message may contain it. */
function clean(value: string): string {
  return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message.slice(0, 500) : String(err).slice(0, 500);
}
