// npm run bench:engine — the jobs engine in a worker process of its own (test/fixtures/jobs-worker.ts: the
// worker role as `domainkit worker` starts it, with ping pointed at a local server) over a durable embedded
// PostgreSQL.
// (a) throughput: 20 jobs × 1,000 domains of a source that answers at once with no I/O (the fixture's
//     instant source in ping's queue) → tasks/s committed: the engine's own cost per task. Beside it, the same
//     with the real ping against a local server that answers at once, and that server's request rate with
//     the same requests made directly (no engine), 50 in flight.
// (b) makespan: 200 domains × ping with 300 ms latency and concurrency 8 → makespan / (200 × 0.3 / 8 s).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { fileURLToPath } from 'node:url';
import { v7 as uuidv7 } from 'uuid';
import { createJob } from '../src/jobs/create.ts';
import { JOB_SOURCES, sourceRegistry } from '../src/jobs/index.ts';
import { createPool } from '../src/platform/db/index.ts';
import { allowEverything, createOutbound } from '../src/platform/net/index.ts';
import { startQueue, stopQueue } from '../src/platform/queue.ts';
import { freePort, log, scratchDatabase, writeResult } from './lib.ts';

const JOBS = Number(process.env.BENCH_JOBS ?? 20);
const WORKER = fileURLToPath(new URL('../test/fixtures/jobs-worker.ts', import.meta.url));

let latencyMs = 0;
const server = createServer((_req, res) => {
  if (latencyMs) setTimeout(() => res.end('ok'), latencyMs);
  else res.end('ok');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
const closedPort = await freePort();

const db = await scratchDatabase();
const pool = createPool(db.url, log);
const queue = await startQueue(db.url, log, { work: false });
const sources = sourceRegistry(JOB_SOURCES);
const tenantId = uuidv7();
await pool.query(`INSERT INTO tenants (id, name) VALUES ($1, 'bench')`, [tenantId]);

async function run(label: string, domains: number, jobs: number, env: Record<string, string>) {
  const names = (j: number) => Array.from({ length: domains }, (_, i) => `${label}-${j}-${i}.example`);
  // Every name resolves to 127.0.0.1 through the worker's resolver hook.
  const worker = await startWorker({ ...env, TEST_HOSTS: JSON.stringify({ '*.example': '127.0.0.1' }) });
  try {
    const started = performance.now();
    const ids: string[] = [];
    for (let j = 0; j < jobs; j++) {
      ids.push(
        (
          await createJob(pool, queue, sources, {
            tenantId,
            domains: names(j),
            jobTypes: ['ping'],
            webhookUrl: null,
            publicUrl: 'http://localhost',
          })
        ).job.id,
      );
    }
    for (;;) {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS open FROM jobs WHERE id = ANY ($1) AND status NOT IN ('completed', 'failed')`,
        [ids],
      );
      if (rows[0].open === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM tasks WHERE job_id = ANY ($1) AND state = 'ok'`, [ids]);
    return { seconds, committed: rows[0].n as number };
  } finally {
    worker.kill('SIGINT');
    await new Promise((r) => worker.once('exit', r));
  }
}

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: db.url,
        ALLOW_PRIVATE_NETWORK: 'true',
        LOG_LEVEL: 'warn',
        TEST_PING_PORT: String(port),
        TEST_PING_TLS_PORT: String(closedPort),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('"msg":"ready"')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

try {
  // Baseline: the same two requests per task (https refused, then http), each to a name of its own (so, as
  // in ping, no connection is reused), 50 in flight, no engine.
  const lookup = ((_name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
    process.nextTick(() =>
      options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4),
    )) as unknown as LookupFunction;
  const outbound = createOutbound({ policy: allowEverything, lookup });
  const baselineN = 5000;
  let next = 0;
  const baseStart = performance.now();
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < baselineN) {
        const name = `b-${next++}.example`;
        await outbound.request(`https://${name}:${closedPort}/`, { timeoutMs: 5000 }).catch(() => undefined);
        await outbound.request(`http://${name}:${port}/`, { timeoutMs: 5000 });
      }
    }),
  );
  const baselinePerSecond = baselineN / ((performance.now() - baseStart) / 1000);
  await outbound.close();

  const throughput = await run('t', 1000, JOBS, { JOBS_PING_CONCURRENCY: '50', TEST_INSTANT_SOURCE: 'true' });
  const pingRun = await run('p', 1000, 5, { JOBS_PING_CONCURRENCY: '50' });
  latencyMs = 300;
  const makespan = await run('m', 200, 1, { JOBS_PING_CONCURRENCY: '8' });
  const ideal = (200 * 0.3) / 8;
  const tasksPerSecond = throughput.committed / throughput.seconds;
  await writeResult('engine', {
    throughput: {
      source: 'instant (no I/O), 50 slots',
      tasks: JOBS * 1000,
      committed: throughput.committed,
      seconds: round(throughput.seconds),
      tasks_per_second: Math.round(tasksPerSecond),
      target: 1500,
      meets_target: tasksPerSecond >= 1500,
    },
    ping_against_local_server: {
      tasks: 5000,
      committed: pingRun.committed,
      tasks_per_second: Math.round(pingRun.committed / pingRun.seconds),
      same_requests_without_engine_per_second: Math.round(baselinePerSecond),
      ratio_to_baseline: round(pingRun.committed / pingRun.seconds / baselinePerSecond, 2),
    },
    makespan: {
      domains: 200,
      latency_ms: 300,
      concurrency: 8,
      seconds: round(makespan.seconds),
      ideal_seconds: ideal,
      ratio: round(makespan.seconds / ideal, 3),
      target_ratio: 1.15,
      meets_target: makespan.seconds / ideal <= 1.15,
    },
  });
} finally {
  await stopQueue(queue);
  await pool.end();
  await db.release();
  server.close();
}

function round(n: number, digits = 1): number {
  return Math.round(n * 10 ** digits) / 10 ** digits;
}
