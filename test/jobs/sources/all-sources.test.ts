// A job over 25 domains × all six sources, run by a worker process against the fake providers.
import { describe, expect, it } from 'vitest';
import { useEngine } from '../../helpers/engine.ts';
import { create, ended, resultsOf } from '../../helpers/transitions.ts';

const t = useEngine({
  fakes: { seokicks: {}, moz: {}, ahrefs: {}, wayback: { latencyMs: 20 } },
  env: { TEST_RETRY_DELAYS_MS: '200,200,200' },
});

describe('25 domains × all six sources', () => {
  it('completes with 150 rows; Moz was called in batches of at most 10; a 500 was retried', { timeout: 60_000 }, async () => {
    const domains = [...Array.from({ length: 24 }, (_, i) => `s${i}.example`), 'flaky.example'];
    const sources = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];
    const id = await create(t.call, { domains, job_types: sources });
    expect(await ended(t.call, id, 50_000)).toBe('completed');
    const results = await resultsOf<Record<string, any>>(t.call, id);
    expect(results).toHaveLength(150);
    const errors = results.filter((r) => r.status !== 'ok');
    expect(errors, JSON.stringify(errors.slice(0, 3))).toHaveLength(0);

    const mozCalls = t.fakes.moz.requests.map((r) => (JSON.parse(r.body) as { targets: string[] }).targets.length);
    expect(Math.max(...mozCalls)).toBeLessThanOrEqual(10);
    expect(mozCalls.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(25);
    expect(Math.max(...t.fakes.wayback.requests.map((r) => r.concurrent))).toBe(1);

    // flaky.example failed once at every provider and was retried: its rows say attempt 2.
    const { rows } = await t.db.pool.query(
      `SELECT source, attempts FROM tasks WHERE job_id = $1 AND domain = 'flaky.example' ORDER BY source`,
      [id],
    );
    const attempts = Object.fromEntries(rows.map((r) => [r.source, r.attempts]));
    expect(attempts).toMatchObject({ seokicks: 2, moz: 2, ahrefs_backlinks: 2, ahrefs_traffic: 2, wayback: 2, ping: 1 });
    const row = (d: string, s: string) => results.find((r) => r.domain === d && r.source === s)!;
    expect(typeof row('s0.example', 'seokicks').linkpop).toBe('number');
    expect(typeof row('s0.example', 'moz').domain_authority).toBe('number');
    expect(typeof row('s0.example', 'ahrefs_traffic').traffic_value).toBe('number');
    expect(typeof row('s0.example', 'wayback').snapshot_count).toBe('number');
  });
});
