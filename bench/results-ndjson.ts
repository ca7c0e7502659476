// Part of `npm run bench:jobs-api`: GET /v1/jobs/{id}/results as NDJSON of a 6,000-row job (1,000 domains × 6
// sources) from the API process, and how much that process's resident set grows while it streams. The rows
// are written through the store (the engine is bench:engine's business), each with a SEOkicks-like payload of
// 50 referring links (about 3.7 KB: more than most sources keep), so the stream is about 22 MB. The whole JSON
// answer of the same rows, built in memory, is measured once after the streams, for comparison.
import { readFileSync, writeFileSync } from 'node:fs';
import { JOB_SOURCES, sourceRegistry } from '../src/jobs/index.ts';
import { writeResults, type TaskResult } from '../src/jobs/store/index.ts';
import { withTransaction, type Pool } from '../src/platform/db/index.ts';
import { percentile } from './lib.ts';

const SOURCES = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];
const ROUNDS = 3;
export const NDJSON_TARGET_MB = 50;

export interface NdjsonFigures extends Record<string, unknown> {
  job: string;
  rows: number;
  megabytes: number;
  rounds: number;
  seconds_each_round: number[];
  rows_per_second: number;
  peak_rss_growth_mb_each_round: number[];
  peak_rss_growth_mb: number;
  target_peak_rss_growth_mb: number;
  meets_target: boolean;
  whole_json_for_comparison: { seconds: number; peak_rss_growth_mb: number };
}

/** `pid` is the API process; `post` creates a job through it and answers its id. */
export async function benchNdjson(
  pool: Pool,
  base: string,
  token: string,
  pid: number,
  post: (body: unknown) => Promise<{ id: string }>,
): Promise<NdjsonFigures> {
  const { id } = await post({ domains: Array.from({ length: 1000 }, (_, d) => `stream-${d}.example.com`), job_types: SOURCES });
  const rows = await fill(pool, id);
  const read = async (accept: string) => {
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM: the peak is this request's own
    const before = memory(pid, 'VmRSS');
    const started = performance.now();
    const res = await fetch(`${base}/v1/jobs/${id}/results`, { headers: { authorization: `Bearer ${token}`, accept } });
    if (res.status !== 200) throw new Error(`results as ${accept}: ${res.status} ${await res.text()}`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const seconds = (performance.now() - started) / 1000;
    return { seconds, bytes, lines, growth: memory(pid, 'VmHWM') - before };
  };

  await read('application/x-ndjson'); // warm-up: code paths compiled, pool connections open
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round = await read('application/x-ndjson');
    if (round.lines !== rows) throw new Error(`NDJSON gave ${round.lines} lines, not ${rows}`);
    rounds.push(round);
  }
  const whole = await read('application/json');
  const peak = Math.max(...rounds.map((r) => r.growth));
  return {
    job: '1,000 domains × 6 sources, every row finished with a 3.7 KB payload',
    rows,
    megabytes: round1(rounds[0]!.bytes / 1048576),
    rounds: ROUNDS,
    seconds_each_round: rounds.map((r) => round2(r.seconds)),
    rows_per_second: Math.round(
      rows /
        percentile(
          rounds.map((r) => r.seconds),
          50,
        ),
    ),
    peak_rss_growth_mb_each_round: rounds.map((r) => round1(r.growth)),
    peak_rss_growth_mb: round1(peak),
    target_peak_rss_growth_mb: NDJSON_TARGET_MB,
    meets_target: peak < NDJSON_TARGET_MB,
    whole_json_for_comparison: { seconds: round2(whole.seconds), peak_rss_growth_mb: round1(whole.growth) },
  };
}

/** Every task of the job finished `ok`, written with the engine's own statement, 500 rows a commit. */
async function fill(pool: Pool, jobId: string): Promise<number> {
  const registry = sourceRegistry(JOB_SOURCES);
  const { rows: tasks } = await pool.query<{ position: number; domain: string; source: string }>(
    'SELECT position, domain, source FROM tasks WHERE job_id = $1 ORDER BY source, position',
    [jobId],
  );
  let written = 0;
  for (let i = 0; i < tasks.length; i += 500) {
    const slice = tasks.slice(i, i + 500);
    await withTransaction(pool, async (tx) => {
      for (const source of new Set(slice.map((t) => t.source))) {
        const results: TaskResult[] = slice
          .filter((t) => t.source === source)
          .map((t) => ({
            position: t.position,
            state: 'ok',
            attempts: 1,
            fetched_at: new Date().toISOString(),
            duration_ms: 40,
            error_code: null,
            error_message: null,
            raw: {
              Overview: { linkpop: '1234', domainpop: '321' },
              Results: Array.from({ length: 50 }, (_, n) => ({
                UrlFrom: `https://ref${n}.example.net/${t.domain}/page`,
                AnchorText: `link ${n}`,
              })),
            },
            ...Object.fromEntries(
              registry.columnsOf(source).map((c) => [c.name, c.type === 'boolean' ? true : c.type === 'timestamptz' ? null : t.position]),
            ),
          }));
        written += await writeResults(tx, jobId, source, results, registry.columns);
      }
    });
  }
  return written;
}

function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for process ${pid}`);
  return Number(match[1]) / 1024;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;
