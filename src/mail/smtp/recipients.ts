// RCPT lookups, with a short memory of live inboxes. Only hits are remembered: an inbox keeps its id, its
// expiry and its webhook for life (the insert also drops rows of an inbox deleted meanwhile), so a remembered hit is right
// until the inbox expires, which is checked on every use. Misses always ask the database, so a new inbox or
// domain is reachable at once, from any process.
import type { Pool } from '../../platform/db/index.ts';
import { recipient, type Recipient } from '../store/index.ts';

const REMEMBER_MS = 30_000;
const MAX_REMEMBERED = 10_000;

export function createRecipientLookup(pool: Pool): (address: string) => Promise<Recipient> {
  const remembered = new Map<string, { hit: Recipient & { kind: 'inbox' }; until: number }>();
  return async (address) => {
    const now = Date.now();
    const known = remembered.get(address);
    if (known && known.until > now && (known.hit.expiresAt === null || known.hit.expiresAt.getTime() > now)) return known.hit;
    remembered.delete(address);
    const at = address.lastIndexOf('@');
    const found = await recipient(pool, address, at < 0 ? '' : address.slice(at + 1));
    if (found.kind === 'inbox') {
      if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
      remembered.set(address, { hit: found, until: now + REMEMBER_MS });
    }
    return found;
  };
}
