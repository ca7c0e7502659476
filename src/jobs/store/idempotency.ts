// Idempotency keys of job creation: which job a tenant's key made, and from which request body. A key older than
// KEY_LIFE is free again (taken over in place, so old rows never block a new request).
import type { Queryable } from '../../platform/db/index.ts';

/** How long a key answers with its first job. */
export const KEY_LIFE_HOURS = 24;

export type KeyClaim = { claimed: true } | { claimed: false; jobId: string; requestHash: Buffer };

/**
 * Claims `key` for the job about to be made in this transaction, or tells which job holds it. A concurrent
 * claim of the same key waits here until the other transaction ends: then this one takes it (the other rolled
 * back) or reads the other's job.
 */
export async function claimIdempotencyKey(
  tx: Queryable,
  claim: { tenantId: string; key: string; requestHash: Buffer; jobId: string },
): Promise<KeyClaim> {
  const { rows } = await tx.query({
    name: 'jobs.idempotency.claimIdempotencyKey',
    text: `INSERT INTO job_idempotency_keys AS k (tenant_id, key, request_hash, job_id) VALUES ($1, $2, $3, $4)
      ON CONFLICT (tenant_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, job_id = EXCLUDED.job_id, created_at = now()
        WHERE k.created_at <= now() - make_interval(hours => ${KEY_LIFE_HOURS})
      RETURNING 1`,
    values: [claim.tenantId, claim.key, claim.requestHash, claim.jobId],
  });
  if (rows.length > 0) return { claimed: true };
  const held = await tx.query<{ jobId: string; requestHash: Buffer }>({
    name: 'jobs.idempotency.heldKey',
    text: `SELECT job_id AS "jobId", request_hash AS "requestHash" FROM job_idempotency_keys WHERE tenant_id = $1 AND key = $2`,
    values: [claim.tenantId, claim.key],
  });
  const row = held.rows[0];
  // Gone between the two statements (its job deleted): nothing holds it now; claim it again.
  if (!row) return claimIdempotencyKey(tx, claim);
  return { claimed: false, jobId: row.jobId, requestHash: row.requestHash };
}

export interface CreatedJobRow {
  id: string;
  createdAt: Date;
  jobTypes: string[];
  domains: string[];
  webhookUrl: string | null;
  webhookSecret: string | null;
  /** Rows filled from fresh results at creation (the only rows a job has finished when it is made). */
  cached: number;
}

/** A job as it was when it was made (what its creation answered), with its webhook secret. */
export async function jobAsCreated(db: Queryable, id: string): Promise<CreatedJobRow | undefined> {
  const { rows } = await db.query<CreatedJobRow>({
    name: 'jobs.idempotency.jobAsCreated',
    text: `SELECT id, created_at AS "createdAt", job_types AS "jobTypes", domains, webhook_url AS "webhookUrl",
        webhook_secret AS "webhookSecret",
        (SELECT count(*)::int FROM tasks t WHERE t.job_id = j.id AND t.cached_from IS NOT NULL) AS cached
      FROM jobs j WHERE id = $1`,
    values: [id],
  });
  return rows[0];
}
