// All SQL of the webhook engine.
import type { Queryable } from '../db/index.ts';

export type DeliveryState = 'pending' | 'delivered' | 'dropped' | 'failed';
export type AttemptOutcome = 'delivered' | 'retry' | 'dropped' | 'failed';

export interface NewDelivery {
  id: string;
  service: string;
  event: string;
  subject: string;
  url: string;
  body: Buffer;
  secretRef: string;
}

export interface DeliveryRow extends NewDelivery {
  state: DeliveryState;
  attempts: number;
}

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  outcome: AttemptOutcome;
  nextAttemptAt: Date | null;
}

export async function insertDelivery(db: Queryable, d: NewDelivery): Promise<void> {
  await db.query(
    `INSERT INTO deliveries (id, service, event, subject, url, body, secret_ref, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now())`,
    [d.id, d.service, d.event, d.subject, d.url, d.body, d.secretRef],
  );
}

export async function deliveriesByIds(db: Queryable, ids: string[]): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT id, service, event, subject, url, body, secret_ref AS "secretRef", state, attempts
       FROM deliveries WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return rows;
}

/**
 * Records one attempt and moves the delivery on, unless that attempt was already recorded (a job that ran
 * twice after a crash): returns false then, and the caller must not schedule anything.
 */
export async function recordAttempt(db: Queryable, a: AttemptRecord): Promise<boolean> {
  const inserted = await db.query(
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, outcome)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (delivery_id, attempt) DO NOTHING`,
    [a.deliveryId, a.attempt, a.startedAt, a.durationMs, a.statusCode, a.error, a.outcome],
  );
  if (inserted.rowCount === 0) return false;
  const state: DeliveryState = a.outcome === 'retry' ? 'pending' : a.outcome;
  await db.query(
    `UPDATE deliveries
        SET attempts = $2, state = $3, next_attempt_at = $4,
            finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END
      WHERE id = $1`,
    [a.deliveryId, a.attempt, state, a.nextAttemptAt],
  );
  return true;
}

/** A delivery that can never be attempted (its secret is gone): ends it without an attempt row. */
export async function dropDelivery(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE deliveries SET state = 'dropped', finished_at = now(), next_attempt_at = NULL WHERE id = $1`, [id]);
}

export interface LogRow {
  delivery_id: string;
  service: string;
  event: string;
  subject: string;
  url: string;
  state: DeliveryState;
  created_at: Date;
  attempt: number | null;
  started_at: Date | null;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  outcome: AttemptOutcome | null;
}

/** The delivery log: every delivery of a subject (or the latest ones) with each of its attempts. */
export async function deliveryLog(db: Queryable, filter: { service?: string; subject?: string; limit: number }): Promise<LogRow[]> {
  const { rows } = await db.query<LogRow>(
    `WITH picked AS (
       SELECT * FROM deliveries
        WHERE ($1::text IS NULL OR service = $1) AND ($2::text IS NULL OR subject = $2)
        ORDER BY created_at DESC, id DESC LIMIT $3)
     SELECT d.id AS delivery_id, d.service, d.event, d.subject, d.url, d.state, d.created_at,
            a.attempt, a.started_at, a.duration_ms, a.status_code, a.error, a.outcome
       FROM picked d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id
      ORDER BY d.created_at, d.id, a.attempt`,
    [filter.service ?? null, filter.subject ?? null, filter.limit],
  );
  return rows;
}
