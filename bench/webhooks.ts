// npm run bench:webhooks — deliveries per second to a local receiver that answers 200 at once, and the
// latency from a delivery's commit to its first attempt reaching the receiver (p50/p99).
// Baseline, in the same process: the outbound client POSTing to the same receiver with no database.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPool, withTransaction } from '../src/platform/db/index.ts';
import { allowEverything, createOutbound } from '../src/platform/net/index.ts';
import { startQueue, stopQueue } from '../src/platform/queue.ts';
import { DELIVERY_QUEUE, createDeliveryQueue, enqueueDelivery, startDeliveryWorker } from '../src/platform/webhooks/index.ts';
import { log, percentile, scratchDatabase, writeResult } from './lib.ts';

const THROUGHPUT_N = Number(process.env.BENCH_N ?? 5000);
const LATENCY_N = 300;

const arrivals = new Map<string, number>();
const receiver = createServer((req, res) => {
  const id = req.headers['x-metrics-delivery'];
  if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, performance.now());
  req.resume();
  req.on('end', () => res.end('ok'));
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
const body = JSON.stringify({
  job_id: '0190b5c4-0000-7000-8000-000000000000',
  status: 'completed',
  completed_at: new Date().toISOString(),
  results_url: 'http://localhost:8080/v1/jobs/x/results',
});

// Baseline: raw signed-size POSTs from the same client, 16 in flight.
const outbound = createOutbound({ policy: allowEverything });
const baselineN = 5000;
let next = 0;
const baselineStart = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next++ < baselineN)
      await outbound.request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, timeoutMs: 10_000 });
  }),
);
const baselinePerSecond = baselineN / ((performance.now() - baselineStart) / 1000);

const db = await scratchDatabase();
const pool = createPool(db.url, log, 20);
const queue = await startQueue(db.url, log);
await createDeliveryQueue(queue);
const startWorkers = () =>
  startDeliveryWorker({
    pool,
    queue,
    outbound,
    services: [
      {
        name: 'jobs',
        headerPrefix: 'X-Metrics',
        retryDelaysMs: [5000],
        sendEventHeader: false,
        resolveSecrets: async (refs) => new Map(refs.map((r) => [r, 'f'.repeat(64)])),
      },
    ],
    log,
    userAgent: 'domainkit-bench',
  });
await startWorkers();

async function enqueueMany(n: number, perTransaction: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += perTransaction) {
    const batch = await withTransaction(pool, async (tx) => {
      const out: string[] = [];
      for (let j = i; j < Math.min(n, i + perTransaction); j++) {
        out.push(
          await enqueueDelivery(tx, queue, { service: 'jobs', event: 'job.finished', subject: `bench-${j}`, url, body, secretRef: 'r' }),
        );
      }
      return out;
    });
    ids.push(...batch);
  }
  return ids;
}

async function waitDelivered(ids: string[]): Promise<void> {
  for (;;) {
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM deliveries WHERE id = ANY($1::uuid[]) AND state = 'delivered'`, [
      ids,
    ]);
    if (rows[0].n === ids.length) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Warm-up.
await waitDelivered(await enqueueMany(200, 50));

// Throughput end to end: enqueue N in transactions of 50 while the workers deliver; until all are delivered.
const throughputStart = performance.now();
// Four enqueue lanes, as several API processes would commit events side by side.
const throughputIds = (await Promise.all(Array.from({ length: 4 }, () => enqueueMany(THROUGHPUT_N / 4, 50)))).flat();
const enqueuedAt = performance.now();
await waitDelivered(throughputIds);
const throughputSeconds = (performance.now() - throughputStart) / 1000;
const deliveriesPerSecond = THROUGHPUT_N / throughputSeconds;

// Drain: N deliveries already queued while no worker runs, then the workers start: the delivery rate alone.
await queue.offWork(DELIVERY_QUEUE, { wait: true });
const drainIds = await enqueueMany(THROUGHPUT_N, 200);
const drainStart = performance.now();
await startWorkers();
await waitDelivered(drainIds);
const drainPerSecond = THROUGHPUT_N / ((performance.now() - drainStart) / 1000);

// Latency: one delivery per transaction, 20 a second; commit → first attempt arriving at the receiver.
const latencies: number[] = [];
for (let i = 0; i < LATENCY_N; i++) {
  const [id] = await enqueueMany(1, 1);
  const committed = performance.now();
  const started = performance.now();
  while (!arrivals.has(id!)) await new Promise((r) => setImmediate(r));
  latencies.push(arrivals.get(id!)! - committed);
  const spent = performance.now() - started;
  if (spent < 50) await new Promise((r) => setTimeout(r, 50 - spent));
}

await writeResult('webhooks', {
  deliveries: THROUGHPUT_N,
  seconds: Number(throughputSeconds.toFixed(2)),
  enqueue_seconds: Number(((enqueuedAt - throughputStart) / 1000).toFixed(2)),
  deliveries_per_second: Math.round(deliveriesPerSecond),
  drain_deliveries_per_second: Math.round(drainPerSecond),
  baseline_raw_posts_per_second: Math.round(baselinePerSecond),
  ratio_to_baseline: Number((deliveriesPerSecond / baselinePerSecond).toFixed(3)),
  latency_ms: {
    p50: Number(percentile(latencies, 50).toFixed(1)),
    p99: Number(percentile(latencies, 99).toFixed(1)),
    max: Number(Math.max(...latencies).toFixed(1)),
    samples: latencies.length,
  },
  targets: { deliveries_per_second: '>= 500 (drain rate, and end to end with 4 enqueue lanes)', latency_p99_ms: '< 250' },
  met: { deliveries_per_second: drainPerSecond >= 500 && deliveriesPerSecond >= 500, latency_p99_ms: percentile(latencies, 99) < 250 },
});

await stopQueue(queue);
await outbound.close();
await pool.end();
await db.release();
receiver.close();
process.exit(0);
