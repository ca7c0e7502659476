// Creating a job: what a request must hold, then the job row, one task row per (domain, source) and their
// queue entries, in one transaction; with an Idempotency-Key, the key is claimed first in that transaction, and a
// key already held answers the job it made. With a max age, rows with a fresh result are filled at creation
// (store/reuse.ts) and only the others are queued; a job whose every row was filled ends right there.
import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { withTransaction, type Pool, type Queryable } from '../platform/db/index.ts';
import type { ValidationIssue } from '../platform/http/index.ts';
import { normaliseDomain, webhookUrlProblem } from '../platform/net/index.ts';
import type { Queue } from '../platform/queue.ts';
import { enqueueCallback } from './callback.ts';
import { BudgetExceeded, checkBudgets } from './estimate.ts';
import { enqueueJob, enqueueSpans } from './queues.ts';
import type { SourceRegistry } from './sources/index.ts';
import {
  claimIdempotencyKey,
  finishIfDone,
  insertJob,
  insertTasks,
  insertTasksReusing,
  jobAsCreated,
  type JobRow,
  type Reuse,
} from './store/index.ts';

interface JobRequest {
  tenantId: string;
  /** Normalised and de-duplicated. */
  domains: string[];
  /** Sources of the registry, each once (the request schema checks both). */
  jobTypes: string[];
  webhookUrl: string | null;
  /** The Idempotency-Key header and the request body it must come with again. */
  idempotency?: { key: string; body: unknown } | undefined;
  /** Fresh results to reuse (a max age over 0); none: every row is fetched. */
  reuse?: Reuse | undefined;
  /** JOBS_PUBLIC_URL: the callback of a job that ends at creation names its results under it. */
  publicUrl: string;
}

export interface CreatedJob {
  job: JobRow & { domains: string[] };
  webhookSecret: string | null;
  /** An earlier request with the same Idempotency-Key made the job: this is its answer again. */
  replayed: boolean;
}

/** The same Idempotency-Key came with another body: a 422 for the API. */
export class IdempotencyKeyReused extends Error {}

/** SHA-256 of the body as canonical JSON (object keys sorted), so key order does not make another request. */
export function requestHash(body: unknown): Buffer {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, canonical(v)]));
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest();
}

/**
 * The domains as a job keeps them (normalised, each once, in request order), or every problem of the
 * request at once: each bad domain, and a webhook URL the address rule refuses.
 */
export function checkJobRequest(
  body: { domains: string[]; webhook_url?: string | null | undefined },
  allowPrivateNetwork: boolean,
): { ok: true; domains: string[]; webhookUrl: string | null } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const domains = new Set<string>();
  body.domains.forEach((raw, index) => {
    const result = normaliseDomain(raw);
    if (result.ok) domains.add(result.domain);
    else issues.push({ path: `/domains/${index}`, location: 'body', message: `${JSON.stringify(raw)} ${result.reason}` });
  });
  const webhookUrl = body.webhook_url ?? null;
  if (webhookUrl !== null) {
    const reason = webhookUrlProblem(webhookUrl, allowPrivateNetwork);
    if (reason) issues.push({ path: '/webhook_url', location: 'body', message: reason });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, domains: [...domains], webhookUrl };
}

export async function createJob(pool: Pool, queue: Queue, sources: SourceRegistry, request: JobRequest): Promise<CreatedJob> {
  const jobId = uuidv7();
  const webhookSecret = request.webhookUrl ? randomBytes(32).toString('hex') : null;
  const jobSources = request.jobTypes.map((name) => {
    const descriptor = sources.get(name);
    if (!descriptor) throw new Error(`unknown source ${name}`);
    return descriptor;
  });
  const created = await withTransaction(pool, async (tx) => {
    if (request.idempotency) {
      const hash = requestHash(request.idempotency.body);
      const claim = await claimIdempotencyKey(tx, { tenantId: request.tenantId, key: request.idempotency.key, requestHash: hash, jobId });
      if (!claim.claimed) {
        if (!claim.requestHash.equals(hash)) throw new IdempotencyKeyReused();
        return { replay: claim.jobId };
      }
    }
    const createdAt = await insertJob(tx, {
      id: jobId,
      tenantId: request.tenantId,
      domains: request.domains,
      jobTypes: request.jobTypes,
      webhookUrl: request.webhookUrl,
      webhookSecret,
    });
    if (!request.reuse) {
      await refuseOverBudget(tx, sources, request.tenantId, new Map(request.jobTypes.map((s) => [s, request.domains.length])));
      await insertTasks(tx, jobId, request.domains, request.jobTypes);
      await enqueueJob(tx, queue, { id: jobId, tenantId: request.tenantId, domainCount: request.domains.length, sources: jobSources });
      return { createdAt, cached: 0 };
    }
    const rows = await insertTasksReusing(tx, jobId, request.domains, request.jobTypes, request.reuse, sources.columns);
    await refuseOverBudget(tx, sources, request.tenantId, new Map(rows.map((r) => [r.source, r.rows - r.cached])));
    const spans = rows
      .filter((r) => r.to > r.from)
      .map((r) => ({ source: r.source, batchSize: sources.get(r.source)!.batchSize, from: r.from, to: r.to }));
    await enqueueSpans(tx, queue, { id: jobId, tenantId: request.tenantId, run: 0, spans });
    if (spans.length === 0) {
      const finished = await finishIfDone(tx, jobId);
      if (finished) await enqueueCallback(tx, queue, jobId, finished, request.publicUrl);
    }
    return { createdAt, cached: rows.reduce((n, r) => n + r.cached, 0) };
  });
  if (created.replay !== undefined) return replay(pool, created.replay);
  const job = asCreated({
    id: jobId,
    createdAt: created.createdAt,
    jobTypes: request.jobTypes,
    domains: request.domains,
    webhookUrl: request.webhookUrl,
    cached: created.cached,
  });
  return { job, webhookSecret, replayed: false };
}

/** Throws BudgetExceeded (the transaction then makes nothing) when the rows to fetch are over a budget's room. */
async function refuseOverBudget(tx: Queryable, sources: SourceRegistry, tenantId: string, toFetch: Map<string, number>): Promise<void> {
  const { shortfall } = await checkBudgets(tx, sources, tenantId, toFetch);
  if (shortfall) throw new BudgetExceeded(shortfall);
}

/** The answer of the request that made the job, as it was then (a job's state moves on; its creation does not). */
async function replay(pool: Pool, jobId: string): Promise<CreatedJob> {
  const row = await jobAsCreated(pool, jobId);
  if (!row) throw new Error(`job ${jobId} of an idempotency key is missing`);
  return { job: asCreated(row), webhookSecret: row.webhookSecret, replayed: true };
}

/**
 * A job the moment it is made: queued with the rows filled from fresh results (`cached`) done, or completed when
 * they were every row (it ended in the creating transaction, whose time is its creation time).
 */
function asCreated(made: {
  id: string;
  createdAt: Date;
  jobTypes: string[];
  domains: string[];
  webhookUrl: string | null;
  cached: number;
}): CreatedJob['job'] {
  const total = made.domains.length * made.jobTypes.length;
  const ended = made.cached === total;
  return {
    id: made.id,
    status: ended ? 'completed' : 'queued',
    createdAt: made.createdAt,
    startedAt: ended ? made.createdAt : null,
    finishedAt: ended ? made.createdAt : null,
    jobTypes: made.jobTypes,
    domainCount: made.domains.length,
    webhookUrl: made.webhookUrl,
    total,
    succeeded: made.cached,
    failed: 0,
    domains: made.domains,
  };
}
