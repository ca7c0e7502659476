// npm run bench:jobs-api — the jobs API as a separate process (`domainkit jobs-api`) over a durable embedded
// PostgreSQL: POST /v1/jobs latency with 1,000 domains × 6 sources (6,000 tasks), and GET /v1/jobs/{id}
// requests per second with 50 connections (autocannon). Baselines, in the same run: POST of a 1 × 1 job,
// and GET /healthz (no key, no database) under the same load. Then NDJSON results of a 6,000-row job and the
// API's peak RSS growth while it streams (results-ndjson.ts). First, on a database of its own: POST /v1/jobs with
// max_age over 1,000 × 6 rows all cached, against the same create with max_age 0 (jobs-api-cached.ts).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeKey } from '../src/jobs/index.ts';
import { createPool } from '../src/platform/db/index.ts';
import { benchCachedCreate } from './jobs-api-cached.ts';
import { freePort, log, percentile, scratchDatabase, writeResult } from './lib.ts';
import { benchNdjson } from './results-ndjson.ts';

const CREATES = Number(process.env.BENCH_CREATES ?? 30);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SOURCES = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];

// Its own scratch database and processes, released before the others start: one embedded cluster at a time.
const cached = await benchCachedCreate();
const db = await scratchDatabase();
const pool = createPool(db.url, log);
const { token } = await makeKey(pool, 'bench', 'bench', ['jobs:create', 'jobs:read']);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const logFile = join(tmpdir(), `domainkit-bench-jobs-api-${process.pid}.log`);
const out = openSync(logFile, 'w');
const server = spawn(process.execPath, [fileURLToPath(new URL('../src/cli.ts', import.meta.url)), 'jobs-api'], {
  // The request rate limits run (their cost is measured) but never refuse one key's 50 connections; `off` (set
  // JOBS_RATE_LIMIT_TENANT / _KEY to it) measures without them.
  env: {
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    JOBS_PORT: String(port),
    HOST: '127.0.0.1',
    JOBS_RATE_LIMIT_TENANT: process.env.JOBS_RATE_LIMIT_TENANT ?? '999999999/1m',
    JOBS_RATE_LIMIT_KEY: process.env.JOBS_RATE_LIMIT_KEY ?? '999999999/1m',
  },
  stdio: ['ignore', out, out],
});

try {
  await waitForHealth();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = async (body: unknown) => {
    const started = performance.now();
    const res = await fetch(`${base}/v1/jobs`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await res.json()) as { job_id: string };
    if (res.status !== 201) throw new Error(`POST /v1/jobs: ${res.status} ${JSON.stringify(json)}`);
    return { ms: performance.now() - started, id: json.job_id };
  };

  // Creation: a 1 × 1 baseline, then 1,000 × 6, interleaved so both see the same machine load.
  const small: number[] = [];
  const large: number[] = [];
  let largeJob = '';
  for (let i = 0; i < 3; i++) await post({ domains: [`warm${i}.example`], job_types: ['ping'] });
  for (let i = 0; i < CREATES; i++) {
    small.push((await post({ domains: [`one-${i}.example`], job_types: ['ping'] })).ms);
    const domains = Array.from({ length: 1000 }, (_, d) => `site-${i}-${d}.example.com`);
    const created = await post({ domains, job_types: SOURCES });
    large.push(created.ms);
    largeJob = created.id;
  }

  // The read target: a 10 × 6 job with half its tasks finished (progress is counted on every read).
  const readJob = (await post({ domains: Array.from({ length: 10 }, (_, d) => `read-${d}.example`), job_types: SOURCES })).id;
  await pool.query(`UPDATE tasks SET state = CASE WHEN position % 3 = 0 THEN 'error' ELSE 'ok' END WHERE job_id = $1 AND position < 5`, [
    readJob,
  ]);

  const load = (path: string, withKey: boolean) =>
    autocannon({ url: `${base}${path}`, connections: 50, duration: SECONDS, headers: withKey ? { authorization: `Bearer ${token}` } : {} });
  const checked = async (path: string, withKey: boolean) => {
    const r = await load(path, withKey);
    if (r.non2xx || r.errors) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return r;
  };
  await checked(`/v1/jobs/${readJob}`, true); // warm-up
  // The machine is shared: three rounds of baseline and read, interleaved; the median round is reported.
  const rounds: { health: autocannon.Result; read: autocannon.Result }[] = [];
  for (let i = 0; i < ROUNDS; i++)
    rounds.push({ health: await checked('/healthz', false), read: await checked(`/v1/jobs/${readJob}`, true) });
  rounds.sort((a, b) => a.read.requests.average - b.read.requests.average);
  const { health, read } = rounds[Math.floor(rounds.length / 2)]!;
  const readLarge = await checked(`/v1/jobs/${largeJob}`, true);
  // Last: it fills a job's 6,000 rows, which the figures above must not count.
  const ndjson = await benchNdjson(pool, base, token, server.pid!, post);

  const createP50 = percentile(large, 50);
  await writeResult('jobs-api', {
    create_1000x6: {
      runs: CREATES,
      p50_ms: round(createP50),
      p99_ms: round(percentile(large, 99)),
      target_p50_ms: 150,
      meets_target: createP50 < 150,
    },
    create_1x1_baseline: { p50_ms: round(percentile(small, 50)), p99_ms: round(percentile(small, 99)) },
    create_ratio_to_baseline_p50: round(createP50 / percentile(small, 50)),
    create_1000x6_all_cached: cached,
    get_job: {
      job: '10 domains × 6 sources, 30 of 60 tasks finished (median round)',
      connections: 50,
      seconds: SECONDS,
      rounds: ROUNDS,
      requests_per_second_each_round: rounds.map((r) => Math.round(r.read.requests.average)),
      requests_per_second: Math.round(read.requests.average),
      latency_p50_ms: read.latency.p50,
      latency_p99_ms: read.latency.p99,
      target_rps: 4000,
      meets_target: read.requests.average >= 4000,
    },
    get_job_1000_domains: {
      job: '1,000 domains × 6 sources (the response lists all 1,000 domains)',
      requests_per_second: Math.round(readLarge.requests.average),
      latency_p99_ms: readLarge.latency.p99,
    },
    healthz_baseline_rps: Math.round(health.requests.average),
    get_ratio_to_healthz: round(read.requests.average / health.requests.average),
    results_ndjson_6000_rows: ndjson,
  });
} finally {
  server.kill('SIGINT');
  await new Promise((r) => server.once('exit', r));
  await pool.end();
  await db.release();
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

async function waitForHealth(): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`jobs-api did not start; see ${logFile}`);
}
