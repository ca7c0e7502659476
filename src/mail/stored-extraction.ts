// A stored message's code and links as the current detectors see them. Extraction runs at delivery; a message
// read later may predate a detector version or the keeping of links, and is then looked at again on read and
// the new finding stored (links, link_count and links_version together), so it is not looked at twice. Links
// are found again from the stored raw bytes: only they tell whether the text part was written by the sender or
// made from the HTML by the parser, and a made one is no source of links.
import type { Queryable } from '../platform/db/index.ts';
import { detectOtp, extractLinks, isStale, LINKS_VERSION, linksStale, OTP_DETECTOR_VERSION, otpStale } from './extract/index.ts';
import { parseMessage } from './smtp/index.ts';
import { extractionOf, listMessagesJson, rawMessage, storeExtraction, type ExtractionRow, type MessageRow } from './store/index.ts';

/**
 * The message's extraction, brought up to date; undefined when there is no such message in a live inbox that
 * `viewer` (the account a request proved, or null) may see.
 */
export async function currentExtraction(db: Queryable, id: string, viewer: string | null): Promise<ExtractionRow | undefined> {
  const message = await extractionOf(db, id, viewer);
  if (!message || !isStale(message)) return message;
  const found = {
    otp: otpStale(message)
      ? detectOtp({ subject: message.subject, text: message.bodyText, html: message.bodyHtml, sender: message.fromAddress })
      : message.otp,
    otpVersion: otpStale(message) ? OTP_DETECTOR_VERSION : message.otpVersion,
    links: message.links ?? [],
    linksVersion: message.linksVersion,
  };
  if (linksStale(message)) {
    const raw = await rawMessage(db, id, viewer);
    if (!raw) return undefined;
    const parsed = await parseMessage(raw);
    found.links = extractLinks({ html: parsed.bodyHtml, plainText: parsed.plainText, headers: parsed.headers });
    found.linksVersion = LINKS_VERSION;
  }
  await storeExtraction(db, message.id, found);
  return { ...message, ...found };
}

/** A message as read whole, its code and links brought up to date when an older detector found them. */
export async function withCurrentExtraction(db: Queryable, row: MessageRow, viewer: string | null): Promise<MessageRow> {
  if (!isStale(row)) return row;
  const current = await currentExtraction(db, row.id, viewer);
  if (!current) return row;
  const links = current.links ?? [];
  return {
    ...row,
    otp: current.otp,
    hasOtp: current.otp !== null,
    otpVersion: current.otpVersion,
    links,
    linkCount: links.length,
    linksVersion: current.linksVersion,
  };
}

/**
 * A live inbox's newest messages as the API's JSON array, their `link_count` agreeing with what /links answers:
 * messages of the page whose links an older extractor found are brought up to date first (once; later reads
 * find them current and cost the one statement).
 */
export async function currentMessageList(
  db: Queryable,
  address: string,
  limit: number,
  viewer: string | null,
): Promise<string | undefined> {
  const page = await listMessagesJson(db, address, limit, viewer, LINKS_VERSION);
  if (!page || page.stale.length === 0) return page?.json;
  for (const id of page.stale) await currentExtraction(db, id, viewer);
  return (await listMessagesJson(db, address, limit, viewer, LINKS_VERSION))?.json;
}
