// Finished result rows written straight through the store (writeResults, the engine's own statement), for
// tests that need thousands of rows with sizeable payloads faster than fakes could serve them.
import { JOB_SOURCES, sourceRegistry } from '../../src/jobs/index.ts';
import { writeResults, type TaskResult } from '../../src/jobs/store/index.ts';
import { withTransaction, type Pool } from '../../src/platform/db/index.ts';

const registry = sourceRegistry(JOB_SOURCES);

/** A SEOkicks-like payload: `links` referring rows of about 70 bytes each. */
export function referringPayload(domain: string, links: number): unknown {
  return {
    Overview: { linkpop: '1234', domainpop: '321' },
    Results: Array.from({ length: links }, (_, i) => ({ UrlFrom: `https://ref${i}.example.net/${domain}/page`, AnchorText: `link ${i}` })),
  };
}

/**
 * Every task of the job finished: `ok` with `raw` and a value in each typed column, or `error` where `isError`
 * says so. Written in commits of `perCommit` rows.
 */
export async function fillResults(
  pool: Pool,
  jobId: string,
  options: {
    raw: (domain: string, source: string) => unknown;
    isError?: (position: number, source: string) => boolean;
    perCommit?: number;
  },
): Promise<number> {
  const { rows: tasks } = await pool.query<{ position: number; domain: string; source: string }>(
    'SELECT position, domain, source FROM tasks WHERE job_id = $1 ORDER BY source, position',
    [jobId],
  );
  const perCommit = options.perCommit ?? 500;
  let written = 0;
  for (let i = 0; i < tasks.length; i += perCommit) {
    const slice = tasks.slice(i, i + perCommit);
    await withTransaction(pool, async (tx) => {
      for (const source of new Set(slice.map((t) => t.source))) {
        const results = slice.filter((t) => t.source === source).map((t) => taskResult(t, options));
        written += await writeResults(tx, jobId, source, results, registry.columns);
      }
    });
  }
  return written;
}

function taskResult(
  task: { position: number; domain: string; source: string },
  options: { raw: (domain: string, source: string) => unknown; isError?: (position: number, source: string) => boolean },
): TaskResult {
  const base = { position: task.position, attempts: 1, fetched_at: new Date(Date.UTC(2026, 0, 1, 0, 0, task.position)).toISOString() };
  if (options.isError?.(task.position, task.source)) {
    return { ...base, state: 'error', duration_ms: 3, error_code: 'upstream_no_data', error_message: 'no data', raw: null };
  }
  const typed = Object.fromEntries(registry.columnsOf(task.source).map((c) => [c.name, typedValue(c.type, task.position)]));
  return {
    ...base,
    state: 'ok',
    duration_ms: 40,
    error_code: null,
    error_message: null,
    raw: options.raw(task.domain, task.source),
    ...typed,
  };
}

function typedValue(type: string, n: number): unknown {
  if (type === 'boolean') return n % 2 === 0;
  if (type === 'timestamptz') return new Date(Date.UTC(2001, 0, 1 + (n % 365))).toISOString();
  if (type === 'double precision') return n / 10;
  return n;
}
