// What long-polling waiters (realtime/waiters.ts) read: the few fields of messages their filters look at, the
// newest message of inboxes (where a wait without a cursor starts), and messages whole without marking them
// read. The rows are found by id or after a message id: ids are UUIDv7, so "after" is "stored later".
import type { Queryable } from '../../platform/db/index.ts';
import { LIVE } from './live.ts';
import { MESSAGE_ROW_COLUMNS, type MessageRow } from './messages.ts';

/** What a wait's filters look at in a message, and what says whether its extraction is out of date. */
export interface WaitCandidate {
  id: string;
  inboxId: string;
  fromAddress: string;
  subject: string;
  tag: string | null;
  hasOtp: boolean;
  /** The kinds of its stored links, each once. */
  linkKinds: string[];
  otpVersion: number;
  linksVersion: number;
  /** Stored before links were kept. */
  linksMissing: boolean;
  /** The transaction that stored it (xid8 as text); null for messages stored before this was kept. */
  storedBy: string | null;
}

const CANDIDATE_COLUMNS = `m.id, m.inbox_id AS "inboxId", m.from_address AS "fromAddress", m.subject, m.tag,
  m.otp IS NOT NULL AS "hasOtp",
  coalesce((SELECT array_agg(DISTINCT l->>'kind') FROM jsonb_array_elements(m.links) l WHERE l->>'kind' IS NOT NULL), '{}') AS "linkKinds",
  m.otp_version AS "otpVersion", m.links_version AS "linksVersion", m.links IS NULL AS "linksMissing",
  m.stored_by::text AS "storedBy"`;

/** These messages (those still stored), oldest first. */
export async function waitCandidates(db: Queryable, ids: readonly string[]): Promise<WaitCandidate[]> {
  const { rows } = await db.query<WaitCandidate>({
    name: 'mail.messages.waitCandidates',
    text: `SELECT ${CANDIDATE_COLUMNS} FROM messages m WHERE m.id = ANY($1::uuid[]) ORDER BY m.id`,
    values: [ids],
  });
  return rows;
}

/** For each inbox, its first `limit` messages after the given message id, oldest first. */
export async function waitCandidatesAfter(
  db: Queryable,
  from: readonly { inboxId: string; after: string }[],
  limit: number,
): Promise<WaitCandidate[]> {
  const { rows } = await db.query<WaitCandidate>({
    name: 'mail.messages.waitCandidatesAfter',
    text: `SELECT c.* FROM unnest($1::uuid[], $2::uuid[]) AS f(inbox_id, after)
      CROSS JOIN LATERAL (SELECT ${CANDIDATE_COLUMNS} FROM messages m
        WHERE m.inbox_id = f.inbox_id AND m.id > f.after ORDER BY m.id LIMIT $3) c
      ORDER BY c.id`,
    values: [from.map((f) => f.inboxId), from.map((f) => f.after), limit],
  });
  return rows;
}

export interface NewestMessages {
  /** The id of each inbox's newest message; an inbox without messages is left out. */
  newest: Map<string, string>;
  /** The snapshot the statement read with (pg_current_snapshot as text): what it could see. */
  snapshot: string;
}

/** The newest message of each inbox, and the snapshot that saw them (one statement: one snapshot). */
export async function newestMessageIds(db: Queryable, inboxIds: readonly string[]): Promise<NewestMessages> {
  const { rows } = await db.query<{ inboxId: string | null; id: string | null; snapshot: string }>({
    name: 'mail.messages.newestMessageIds',
    text: `SELECT pg_current_snapshot()::text AS snapshot, n."inboxId", n.id
      FROM (SELECT 1) one LEFT JOIN (
        SELECT m.inbox_id AS "inboxId", max(m.id::text) AS id FROM messages m WHERE m.inbox_id = ANY($1::uuid[]) GROUP BY m.inbox_id
      ) n ON true`,
    values: [inboxIds],
  });
  const newest = new Map<string, string>();
  for (const r of rows) if (r.inboxId && r.id) newest.set(r.inboxId, r.id);
  return { newest, snapshot: rows[0]!.snapshot };
}

/** Messages of live inboxes as GET /api/v1/messages/{id} reads them, without marking them read. */
export async function peekMessages(db: Queryable, ids: readonly string[]): Promise<MessageRow[]> {
  const { rows } = await db.query<MessageRow>({
    name: 'mail.messages.peekMessages',
    text: `SELECT ${MESSAGE_ROW_COLUMNS} FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE m.id = ANY($1::uuid[]) AND ${LIVE}`,
    values: [ids],
  });
  return rows;
}
