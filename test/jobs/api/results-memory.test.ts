// NDJSON of a 6,000-row job keeps the API process's memory flat: `domainkit jobs-api` runs as a process of its
// own, a slow client reads the stream (and stops reading for a while), and the process's resident set is
// sampled while it streams. The rows (1,000 domains × 6 sources, each with 150 referring links: about 77 MB of
// NDJSON) are written through the store, not fetched from fakes: the engine is not what this measures. A server
// that built the answer, or wrote it without waiting for the client, would hold all of it: measured, the whole
// JSON answer of these rows grows the process by about 440 MB, and this stream without backpressure by 75 MB.
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { client, tokenFor } from '../../helpers/jobs.ts';
import { fillResults, referringPayload } from '../../helpers/results.ts';

const SOURCES = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];
/** RSS growth allowed while streaming (measured: 9 to 14 MB in 25 runs; without backpressure 75 MB); the stream itself is almost twice as large. */
const BOUND_MB = 40;
/**
 * V8 sizes its young generation by itself: it grows it (to 2 × 32 MB here) when much survives its collections and
 * shrinks it again after some full collections, whatever the request. Measured with --trace-gc, a run where this
 * happened during the stream grew the process by 46 to 62 MB with the old generation flat. It is not the stream's
 * memory, and a process that has served anything has it grown, so the young generation is fixed at that size from
 * the start here: what is left to grow is what the stream holds.
 */
const YOUNG_GENERATION = ['--min-semi-space-size=32', '--max-semi-space-size=32'];

let db: TestDatabase;
let server: RunningCli;
let call: ReturnType<typeof client>;
let token: string;
let base: string;

beforeAll(async () => {
  db = await createTestDatabase();
  server = await startCli(['jobs-api'], { DATABASE_URL: db.url, JOBS_PORT: '0', HOST: '127.0.0.1' }, { nodeArgs: YOUNG_GENERATION });
  base = server.addresses['jobs-api']!;
  token = await tokenFor(db, 'acme');
  call = client(base, token);
});
afterAll(async () => {
  await server?.stop();
  await db?.pool.end();
});

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) / 1024;
}

/**
 * Reads `path` as NDJSON slowly, sampling the server's RSS after every chunk: after the first chunk it stops
 * reading for `stallMs` (sampling every 20 ms), then pauses briefly after each chunk. A server that wrote
 * without waiting for the client would hold the rest of the answer meanwhile.
 */
function readSlowly(path: string, pid: number, samples: number[], stallMs = 0): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    get(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/x-ndjson' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        samples.push(rssMb(pid, 'VmRSS'));
        res.pause();
        if (chunks.length > 1 || stallMs === 0) {
          setTimeout(() => res.resume(), 2);
          return;
        }
        const sampler = setInterval(() => samples.push(rssMb(pid, 'VmRSS')), 20);
        setTimeout(() => {
          clearInterval(sampler);
          res.resume();
        }, stallMs);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function createJob(domains: number): Promise<string> {
  const names = Array.from({ length: domains }, (_, i) => `site${i}.example.com`);
  const res = await call('/v1/jobs', { body: { domains: names, job_types: SOURCES } });
  expect(res.status).toBe(201);
  const { job_id: id } = (await res.json()) as { job_id: string };
  // No worker runs: every task is still queued, and the store fills them all.
  const written = await fillResults(db.pool, id, { raw: (d) => referringPayload(d, 150), isError: (p, s) => s === 'moz' && p % 10 === 0 });
  expect(written).toBe(domains * SOURCES.length);
  return id;
}

describe('NDJSON of a 6,000-row job, the API as its own process', () => {
  it(`streams every row while the API's RSS grows less than ${BOUND_MB} MB`, { timeout: 180_000 }, async () => {
    const pid = server.child.pid!;
    const warm = await createJob(20);
    const big = await createJob(1000);
    // Warm-up on the small job: code paths compiled, serializers built, pool connections open.
    for (let i = 0; i < 3; i++) await readSlowly(`/v1/jobs/${warm}/results`, pid, []);

    // The peak resident set is reset (Linux: clear_refs 5), so VmHWM afterwards is this stream's own peak,
    // including moments between two samples.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const before = rssMb(pid, 'VmRSS');
    const samples: number[] = [];
    const { status, text } = await readSlowly(`/v1/jobs/${big}/results`, pid, samples, 4000);
    const peak = Math.max(rssMb(pid, 'VmHWM'), ...samples);
    expect(status).toBe(200);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(6000);
    const keys = lines.map((line) => {
      const row = JSON.parse(line) as { domain: string; source: string };
      return `${row.domain}/${row.source}`;
    });
    expect(new Set(keys).size).toBe(6000);
    expect(text.length / 1048576).toBeGreaterThan(1.5 * BOUND_MB);
    expect(samples.length).toBeGreaterThan(100);
    const growth = peak - before;
    console.info(
      `NDJSON, 6,000 rows, ${(text.length / 1048576).toFixed(1)} MB: RSS ${before.toFixed(1)} → peak ${peak.toFixed(1)} MB (+${growth.toFixed(1)})`,
    );
    expect(growth).toBeLessThan(BOUND_MB);
  });
});
