// What waits read besides the candidates' fields: a candidate's code and links brought up to date when a filter
// looks at them and they were found by an older detector (a message stored before this version), and the
// matched messages whole, as GET /api/v1/messages/{id} shows them but not marked read.
import type { Pool } from '../../platform/db/index.ts';
import { isStale } from '../extract/index.ts';
import { peekMessages, type MessageRow, type WaitCandidate } from '../store/index.ts';
import { currentExtraction, withCurrentExtraction } from '../stored-extraction.ts';
import { needsExtraction, type Waiter } from './waiter.ts';

/** Whether what was stored of the message's code or links is out of date (the candidate says only whether there are any). */
function stale(c: WaitCandidate): boolean {
  return isStale({ otp: c.hasOtp ? '' : null, otpVersion: c.otpVersion, links: c.linksMissing ? null : [], linksVersion: c.linksVersion });
}

/**
 * The candidates, those whose filters look at extraction and whose stored findings are out of date brought up
 * to date (and stored). Messages just received are current: this reads nothing for them.
 */
export async function freshen(
  pool: Pool,
  candidates: WaitCandidate[],
  byInbox: ReadonlyMap<string, ReadonlySet<Waiter>>,
): Promise<WaitCandidate[]> {
  return Promise.all(
    candidates.map(async (c) => {
      const waiters = [...(byInbox.get(c.inboxId) ?? [])];
      if (!stale(c) || !waiters.some((w) => needsExtraction(w.filters))) return c;
      // As the inbox's owner, who may see it whether or not it is private.
      const current = await currentExtraction(pool, c.id, waiters[0]!.inbox.accountId);
      if (!current) return c;
      const linkKinds = [...new Set((current.links ?? []).map((l) => l.kind))];
      return {
        ...c,
        hasOtp: current.otp !== null,
        linkKinds,
        otpVersion: current.otpVersion,
        linksVersion: current.linksVersion,
        linksMissing: false,
      };
    }),
  );
}

/**
 * Messages whole with their code and links up to date, not marked read, by id; one that is gone is left out.
 * `owner` names the account of each one's inbox, who may see it whether or not it is private.
 */
export async function loadMessages(pool: Pool, ids: string[], owner: (id: string) => string | null): Promise<Map<string, MessageRow>> {
  const rows = await peekMessages(pool, ids);
  const current = await Promise.all(rows.map((row) => withCurrentExtraction(pool, row, owner(row.id))));
  return new Map(current.map((row) => [row.id, row]));
}
