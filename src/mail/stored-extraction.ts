// A stored message's code and links as the current detectors see them. Extraction runs at delivery; a message
// read later may predate a detector version or the keeping of links, and is then looked at again on read and
// the new finding stored, so it is not looked at twice.
import type { Queryable } from '../platform/db/index.ts';
import { reextract } from './extract/index.ts';
import { extractionOf, storeExtraction, type ExtractionRow } from './store/index.ts';

/** The message's extraction, brought up to date; undefined when there is no such message in a live inbox. */
export async function currentExtraction(db: Queryable, id: string): Promise<ExtractionRow | undefined> {
  const message = await extractionOf(db, id);
  if (!message) return undefined;
  const found = reextract(message);
  if (!found) return message;
  await storeExtraction(db, message.id, found);
  return { ...message, ...found };
}
