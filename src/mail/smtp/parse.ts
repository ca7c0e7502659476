// A received message's readable parts, from its raw bytes with mailparser. Nothing here may lose mail: whatever
// cannot be parsed is left empty and named in `parseError`, and the raw bytes are stored regardless.
import libmime from 'libmime';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { NewMessage } from '../store/index.ts';

/** The fields of a stored message that come from its bytes. */
export type ParsedMessage = Pick<
  NewMessage,
  'fromAddress' | 'subject' | 'bodyText' | 'bodyHtml' | 'headers' | 'attachments' | 'parseError'
>;

export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  let mail: ParsedMail;
  try {
    // Text is not turned into HTML (body_html stays null when the message has none).
    mail = await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true });
  } catch (err) {
    return { fromAddress: '', subject: '', bodyText: null, bodyHtml: null, headers: {}, attachments: [], parseError: describe(err) };
  }
  return {
    fromAddress: clean(mail.from?.value.find((a) => a.address)?.address ?? ''),
    subject: clean(mail.subject ?? ''),
    bodyText: mail.text === undefined ? null : clean(mail.text),
    bodyHtml: typeof mail.html === 'string' ? clean(mail.html) : null,
    headers: headersOf(mail),
    attachments: mail.attachments.map((a) => ({
      filename: a.filename === undefined ? null : clean(a.filename),
      size: a.size,
      content_type: clean(a.contentType),
    })),
    parseError: mail.textConversionError ? describe(mail.textConversionError) : null,
  };
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
