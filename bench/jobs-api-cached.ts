// Part of `npm run bench:jobs-api`: POST /v1/jobs with `max_age` over 1,000 domains × 6 sources whose every row
// has a fresh result, so the job is answered `completed` by the creating transaction. On a scratch database of
// its own (the other scenarios leave queued jobs a worker would run): the cache is seeded by one real job that a
// worker process (test/fixtures/jobs-worker.ts, as bench:engine runs it) fetches from the fake providers, with
// their rates lifted and ping pointed at a local server; the worker is then stopped. Measured, interleaved so
// both see the same load: creates of the same 1,000 × 6 with max_age "1d" (all cached) and with max_age 0
// (the baseline: every row queued, nothing looked up); then the cached create from several clients at once.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startAhrefsFake } from '../src/dev/fakes/ahrefs.ts';
import { startMozFake } from '../src/dev/fakes/moz.ts';
import { startSeokicksFake } from '../src/dev/fakes/seokicks.ts';
import { startWaybackFake } from '../src/dev/fakes/wayback.ts';
import { makeKey } from '../src/jobs/index.ts';
import { createPool } from '../src/platform/db/index.ts';
import { cpuSeconds, freePort, log, percentile, scratchDatabase } from './lib.ts';
import { benchProcesses, waitForHttp } from './processes.ts';

const CREATES = Number(process.env.BENCH_CACHED_CREATES ?? 50);
const CLIENTS = Number(process.env.BENCH_CACHED_CLIENTS ?? 4);
const PER_CLIENT = Number(process.env.BENCH_CACHED_PER_CLIENT ?? 10);
const SOURCES = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];
const DOMAINS = Array.from({ length: 1000 }, (_, d) => `cached-${d}.example.com`);
const ROWS = DOMAINS.length * SOURCES.length;
export const CACHED_TARGET_P50_MS = 200;

interface Job {
  job_id: string;
  status: string;
  progress: { total: number; succeeded: number; failed: number; pending: number };
  cost: Record<string, { amount: number; unit: string | null }>;
}

export interface CachedFigures extends Record<string, unknown> {
  job: string;
  seed: { seconds: number; upstream_calls: number };
  sequential: { runs: number; p50_ms: number; p95_ms: number; p99_ms: number };
  baseline_max_age_0: { runs: number; p50_ms: number; p95_ms: number };
  ratio_to_baseline_p50: number;
  /** CPU per create (sequential) of the API process and of PostgreSQL (postmaster and its children). */
  cpu_ms_per_create: { all_cached: { api: number; postgres: number }; baseline_max_age_0: { api: number; postgres: number } };
  concurrent: { clients: number; runs: number; p50_ms: number; p95_ms: number; p99_ms: number; creates_per_second: number };
  target_p50_ms: number;
  meets_target: boolean;
}

export async function benchCachedCreate(): Promise<CachedFigures> {
  const db = await scratchDatabase();
  const pool = createPool(db.url, log);
  const keys = { seokicks: 'bench-sk', moz: 'bench-moz', ahrefs: 'bench-ahrefs' };
  const fakes = {
    seokicks: await startSeokicksFake({ apiKey: keys.seokicks }),
    moz: await startMozFake({ token: keys.moz }),
    ahrefs: await startAhrefsFake({ apiKey: keys.ahrefs }),
    wayback: await startWaybackFake(),
  };
  const pingTarget = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => pingTarget.listen(0, '127.0.0.1', r));
  const processes = benchProcesses('jobs-api-cached', async () => {
    await Promise.all(Object.values(fakes).map((f) => f.close()));
    await new Promise((r) => pingTarget.close(r));
    await pool.end();
    await db.release();
  });
  try {
    const { token } = await makeKey(pool, 'bench', 'bench', ['jobs:create', 'jobs:read']);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
    const api = processes.start('api', [cli, 'jobs-api'], {
      PATH: process.env.PATH,
      DATABASE_URL: db.url,
      JOBS_PORT: String(port),
      HOST: '127.0.0.1',
    });
    const worker = processes.start('worker', [fileURLToPath(new URL('../test/fixtures/jobs-worker.ts', import.meta.url))], {
      PATH: process.env.PATH,
      DATABASE_URL: db.url,
      ALLOW_PRIVATE_NETWORK: 'true',
      LOG_LEVEL: 'warn',
      TEST_HOSTS: JSON.stringify({ '*.example.com': '127.0.0.1' }),
      TEST_PING_PORT: String((pingTarget.address() as AddressInfo).port),
      TEST_PING_TLS_PORT: String(await freePort()),
      SEOKICKS_API_KEY: keys.seokicks,
      SEOKICKS_BASE_URL: fakes.seokicks.url,
      MOZ_TOKEN: keys.moz,
      MOZ_BASE_URL: fakes.moz.url,
      AHREFS_API_KEY: keys.ahrefs,
      AHREFS_BASE_URL: `${fakes.ahrefs.url}/v3`,
      WAYBACK_BASE_URL: fakes.wayback.url,
      // The providers' real rates (Moz one call per 10 s) would make the seed take hours; the fakes have none.
      JOBS_MOZ_RATE: '0',
      JOBS_WAYBACK_RATE: '0',
      ...Object.fromEntries(
        ['SEOKICKS', 'MOZ', 'AHREFS_BACKLINKS', 'AHREFS_TRAFFIC', 'WAYBACK'].map((s) => [`JOBS_${s}_CONCURRENCY`, '8']),
      ),
    });
    await waitForHttp(`${base}/readyz`);

    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (maxAge: number | string) => {
      const started = performance.now();
      const res = await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ domains: DOMAINS, job_types: SOURCES, max_age: maxAge }),
      });
      const job = (await res.json()) as Job;
      const ms = performance.now() - started;
      if (res.status !== 201) throw new Error(`POST /v1/jobs (max_age ${maxAge}): ${res.status} ${JSON.stringify(job)}`);
      return { ms, job };
    };
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };

    // The seed: one job fetched for real (from the fakes), every row ok, or nothing below would be cached.
    const seedStarted = performance.now();
    const seed = (await post(0)).job.job_id;
    let seeded: Job;
    for (;;) {
      seeded = (await get(`/v1/jobs/${seed}`)) as Job;
      if (seeded.progress.pending === 0) break;
      if (performance.now() - seedStarted > 15 * 60_000) throw new Error(`the seed job did not finish: ${JSON.stringify(seeded.progress)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    if (seeded.status !== 'completed' || seeded.progress.succeeded !== ROWS) {
      throw new Error(`the seed job ended ${seeded.status} with ${JSON.stringify(seeded.progress)}; every row must be ok`);
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const upstreamCalls = Object.values(fakes).reduce((n, f) => n + f.requests.length, 0);
    // The baseline's jobs stay queued: nothing may run them while creates are timed.
    await processes.stop(worker);

    const allCached = (job: Job, label: string) => {
      const { status, progress } = job;
      if (status !== 'completed' || progress.succeeded !== ROWS || progress.failed !== 0 || progress.pending !== 0) {
        throw new Error(`${label}: ${status} ${JSON.stringify(progress)}, not completed with ${ROWS} succeeded`);
      }
    };
    for (let i = 0; i < 3; i++) allCached((await post('1d')).job, 'warm-up'); // code paths compiled, statements prepared
    await post(0);

    const cached: number[] = [];
    const baseline: number[] = [];
    // CPU seconds used by the API and by PostgreSQL during each kind of create, summed over the runs.
    const cpu = { cached: { api: 0, postgres: 0 }, baseline: { api: 0, postgres: 0 } };
    const measured = async <T>(into: { api: number; postgres: number }, create: () => Promise<T>): Promise<T> => {
      const before = { api: cpuSeconds([api.pid!]), postgres: cpuSeconds([db.pid]) };
      const made = await create();
      into.api += cpuSeconds([api.pid!]) - before.api;
      into.postgres += cpuSeconds([db.pid]) - before.postgres;
      return made;
    };
    let sample = '';
    for (let i = 0; i < CREATES; i++) {
      const made = await measured(cpu.cached, () => post('1d'));
      allCached(made.job, `cached create ${i}`);
      cached.push(made.ms);
      sample = made.job.job_id;
      const queued = await measured(cpu.baseline, () => post(0));
      if (queued.job.status !== 'queued' || queued.job.progress.pending !== ROWS) {
        throw new Error(`baseline create ${i}: ${queued.job.status} ${JSON.stringify(queued.job.progress)}, not queued`);
      }
      baseline.push(queued.ms);
    }
    // One of them, row by row: copied from the seed, at no cost.
    const page = (await get(`/v1/jobs/${sample}/results?limit=50`)) as {
      results: { cached_from: string | null; cost: { amount: number } }[];
    };
    if (!page.results.every((r) => r.cached_from === seed && r.cost.amount === 0))
      throw new Error('a cached row is not the seed job’s copy at 0');
    const costs = ((await get(`/v1/jobs/${sample}`)) as Job).cost;
    if (Object.values(costs).some((c) => c.amount !== 0)) throw new Error(`a cached job cost ${JSON.stringify(costs)}`);

    const together: number[] = [];
    const concurrentStarted = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let i = 0; i < PER_CLIENT; i++) {
          const made = await post('1d');
          allCached(made.job, 'concurrent cached create');
          together.push(made.ms);
        }
      }),
    );
    const concurrentSeconds = (performance.now() - concurrentStarted) / 1000;

    const p50 = percentile(cached, 50);
    return {
      job: '1,000 domains × 6 sources, every row with a fresh result (max_age "1d"): 201 completed, 6,000 succeeded',
      seed: { seconds: round(seedSeconds), upstream_calls: upstreamCalls },
      sequential: { runs: CREATES, p50_ms: round(p50), p95_ms: round(percentile(cached, 95)), p99_ms: round(percentile(cached, 99)) },
      baseline_max_age_0: { runs: CREATES, p50_ms: round(percentile(baseline, 50)), p95_ms: round(percentile(baseline, 95)) },
      ratio_to_baseline_p50: round(p50 / percentile(baseline, 50)),
      cpu_ms_per_create: { all_cached: perCreate(cpu.cached), baseline_max_age_0: perCreate(cpu.baseline) },
      concurrent: {
        clients: CLIENTS,
        runs: together.length,
        p50_ms: round(percentile(together, 50)),
        p95_ms: round(percentile(together, 95)),
        p99_ms: round(percentile(together, 99)),
        creates_per_second: round(together.length / concurrentSeconds),
      },
      target_p50_ms: CACHED_TARGET_P50_MS,
      meets_target: p50 < CACHED_TARGET_P50_MS,
    };
  } catch (err) {
    processes.fail();
    throw err;
  } finally {
    await processes.cleanup();
  }
}

function perCreate(seconds: { api: number; postgres: number }): { api: number; postgres: number } {
  return { api: round((seconds.api * 1000) / CREATES), postgres: round((seconds.postgres * 1000) / CREATES) };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
