// RCPT lookups, with a short memory of live inboxes. Only hits on an address without a tag are remembered (a
// tagged address may come to name an inbox of its own at any time, so it always asks): an inbox keeps its
// id, its expiry and its webhook for life, so a remembered hit is right until the inbox expires, which is
// checked on every use, or is deleted, which the insert notices (it stores nothing for a deleted inbox) and
// the receiver then forgets and asks again (server.ts). Misses always ask the database, so a new inbox,
// namespace or domain is reachable at once, from any process.
import { v7 as uuidv7 } from 'uuid';
import type { Pool } from '../../platform/db/index.ts';
import { recipientParts } from '../addresses.ts';
import { recipient, type Recipient } from '../store/index.ts';

const REMEMBER_MS = 30_000;
const MAX_REMEMBERED = 10_000;

export interface RecipientLookup {
  /** What a lower-cased RCPT TO address names (made on first mail when it is a namespace's). */
  find(address: string): Promise<Recipient>;
  /** Drops a remembered hit: its inbox turned out to be gone. */
  forget(address: string): void;
}

export function createRecipientLookup(pool: Pool): RecipientLookup {
  const remembered = new Map<string, { hit: Recipient & { kind: 'inbox' }; until: number }>();
  return {
    async find(address) {
      const now = Date.now();
      const known = remembered.get(address);
      if (known && known.until > now && (known.hit.expiresAt === null || known.hit.expiresAt.getTime() > now)) return known.hit;
      remembered.delete(address);
      const parts = recipientParts(address);
      const found = await recipient(pool, parts, uuidv7());
      if (found.kind === 'inbox' && parts.base === null) {
        if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
        remembered.set(address, { hit: found, until: now + REMEMBER_MS });
      }
      return found;
    },
    forget(address) {
      remembered.delete(address);
    },
  };
}
