// The webhook engine: services enqueue deliveries inside their own transactions; workers POST the stored
// bytes, signed, and follow the service's retry schedule with pg-boss jobs scheduled by `startAfter`.
import type { Job, JobResult } from 'pg-boss';
import { v7 as uuidv7 } from 'uuid';
import { withTransaction, type Pool, type Queryable } from '../db/index.ts';
import type { Logger } from '../log.ts';
import { OutboundError, type Outbound } from '../net/index.ts';
import { inTransaction, type Queue } from '../queue.ts';
import { countAttempt } from './metrics.ts';
import { signature, standardHeaders } from './signing.ts';
import { deliveriesByIds, dropDelivery, insertDelivery, recordAttempt, type AttemptOutcome, type DeliveryRow } from './store.ts';

export const DELIVERY_QUEUE = 'webhook-delivery';

/** One queue entry per attempt: a re-run of an entry whose attempt is already recorded does nothing. */
interface AttemptJob {
  deliveryId: string;
  attempt: number;
}

/** What a service tells the engine about its webhooks. */
export interface WebhookService {
  name: 'jobs' | 'mail';
  /** `X-Metrics` or `X-Mail`: the prefix of the signature, delivery, attempt (and event) headers. */
  headerPrefix: string;
  /** Waits between attempts; attempts = 1 + its length. */
  retryDelaysMs: number[];
  /** Whether to send `<prefix>-Event` with the delivery's event name. */
  sendEventHeader: boolean;
  /** Finds signing secrets by the references stored on deliveries (missing = the subject is gone). */
  resolveSecrets(refs: string[], db: Queryable): Promise<Map<string, string>>;
}

export interface EnqueueDelivery {
  /** The delivery's id when the body names it (it is also the `<prefix>-Delivery` header); new otherwise. */
  id?: string;
  service: WebhookService['name'];
  event: string;
  subject: string;
  url: string;
  body: string | Buffer;
  secretRef: string;
}

/** Records a delivery and its first attempt's queue entry in the caller's transaction; returns its id. */
export async function enqueueDelivery(tx: Queryable, queue: Queue, delivery: EnqueueDelivery): Promise<string> {
  const id = delivery.id ?? uuidv7();
  const body = typeof delivery.body === 'string' ? Buffer.from(delivery.body, 'utf8') : delivery.body;
  await insertDelivery(tx, { ...delivery, id, body });
  await queue.send(DELIVERY_QUEUE, { deliveryId: id, attempt: 1 } satisfies AttemptJob, { db: inTransaction(tx) });
  return id;
}

/** Creates the delivery queue; safe to call from every process. */
export async function createDeliveryQueue(queue: Queue): Promise<void> {
  // A worker that dies mid-attempt stops heartbeating; pg-boss then hands the job to another worker
  // (retryLimit covers crashes only: HTTP failures are scheduled by us, never thrown).
  await queue.createQueue(DELIVERY_QUEUE, { notify: true, heartbeatSeconds: 10, retryLimit: 20, retryDelay: 1, expireInSeconds: 60 });
}

export interface DeliveryWorkerOptions {
  pool: Pool;
  queue: Queue;
  outbound: Outbound;
  services: WebhookService[];
  log: Logger;
  userAgent: string;
  /** Parallel fetch loops in this process; each takes a batch of jobs at a time. */
  concurrency?: number;
  /** Limit of one attempt (10 s, as docs/api/README.md, "Webhooks", promises); tests shrink it. */
  attemptTimeoutMs?: number;
}

export async function startDeliveryWorker(options: DeliveryWorkerOptions): Promise<void> {
  const services = new Map(options.services.map((s) => [s.name, s]));
  await createDeliveryQueue(options.queue);
  await options.queue.work<AttemptJob>(
    DELIVERY_QUEUE,
    {
      batchSize: 25,
      localConcurrency: options.concurrency ?? 4,
      perJobResults: true,
      burstWhenBatchFull: true,
      // New deliveries wake a worker through NOTIFY; the poll finds retries whose startAfter has come.
      pollingIntervalSeconds: 1,
      notifyPollingIntervalSeconds: 1,
    },
    (jobs) => attemptBatch(jobs, services, options),
  );
}

async function attemptBatch(
  jobs: Job<AttemptJob>[],
  services: Map<string, WebhookService>,
  options: DeliveryWorkerOptions,
): Promise<JobResult[]> {
  const rows = await deliveriesByIds(
    options.pool,
    jobs.map((j) => j.data.deliveryId),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const secrets = await resolveAll(rows, services, options.pool);
  return Promise.all(
    jobs.map(async (job): Promise<JobResult> => {
      const row = byId.get(job.data.deliveryId);
      try {
        // A worker that died after recording its attempt leaves the entry to run again: skip it, since the
        // next attempt (if any) was scheduled in the same transaction as the record.
        const due = row && row.state === 'pending' && row.attempts + 1 === (job.data.attempt ?? row.attempts + 1);
        if (due) await attempt(row, services.get(row.service), secrets, options);
        return { id: job.id, status: 'completed' };
      } catch (err) {
        // Only our own database work throws here; pg-boss retries the job.
        options.log.error({ err, deliveryId: job.data.deliveryId }, 'delivery attempt could not be recorded');
        return { id: job.id, status: 'failed' };
      }
    }),
  );
}

async function resolveAll(rows: DeliveryRow[], services: Map<string, WebhookService>, db: Queryable) {
  const secrets = new Map<string, string>();
  for (const [name, service] of services) {
    const refs = rows.filter((r) => r.service === name && r.state === 'pending').map((r) => r.secretRef);
    if (refs.length === 0) continue;
    for (const [ref, secret] of await service.resolveSecrets(refs, db)) secrets.set(`${name}:${ref}`, secret);
  }
  return secrets;
}

async function attempt(
  row: DeliveryRow,
  service: WebhookService | undefined,
  secrets: Map<string, string>,
  options: DeliveryWorkerOptions,
) {
  const secret = secrets.get(`${row.service}:${row.secretRef}`);
  if (!service || secret === undefined) {
    options.log.warn({ deliveryId: row.id, service: row.service }, 'delivery dropped: no signing secret');
    await dropDelivery(options.pool, row.id);
    return;
  }
  const number = row.attempts + 1;
  const p = service.headerPrefix;
  const startedAt = new Date();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': options.userAgent,
    [`${p}-Signature`]: signature(secret, row.body),
    [`${p}-Delivery`]: row.id,
    [`${p}-Attempt`]: String(number),
    ...(service.sendEventHeader ? { [`${p}-Event`]: row.event } : {}),
    ...standardHeaders(secret, row.id, row.body, startedAt),
  };
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  let outcome: AttemptOutcome;
  try {
    const res = await options.outbound.request(row.url, {
      method: 'POST',
      headers,
      body: row.body,
      timeoutMs: options.attemptTimeoutMs ?? 10_000,
    });
    statusCode = res.status;
    outcome = res.status >= 200 && res.status < 300 ? 'delivered' : res.status >= 500 ? 'retry' : 'dropped';
  } catch (err) {
    error = err instanceof OutboundError ? err.kind : 'network';
    // An address the policy refuses, or a URL that is not http(s), will not change on retry.
    outcome = error === 'refused_address' || error === 'invalid_url' ? 'dropped' : 'retry';
  }
  const delay = service.retryDelaysMs[number - 1];
  if (outcome === 'retry' && delay === undefined) outcome = 'failed';
  const durationMs = Math.round(performance.now() - started);
  const nextAttemptAt = outcome === 'retry' ? new Date(Date.now() + delay!) : null;
  const recorded = await withTransaction(options.pool, async (tx) => {
    const recorded = await recordAttempt(tx, {
      deliveryId: row.id,
      attempt: number,
      startedAt,
      durationMs,
      statusCode,
      error,
      outcome,
      nextAttemptAt,
    });
    if (recorded && nextAttemptAt) {
      const next: AttemptJob = { deliveryId: row.id, attempt: number + 1 };
      await options.queue.send(DELIVERY_QUEUE, next, { db: inTransaction(tx), startAfter: nextAttemptAt });
    }
    return recorded;
  });
  // Counted once committed: an attempt another worker recorded first is that worker's to count.
  if (recorded) countAttempt(row.service, number, outcome);
}
