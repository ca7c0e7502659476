// Hard cancel (POST /v1/jobs/{id}/cancel) while a worker in another process has upstream calls in flight: the
// worker hears of it through PostgreSQL and aborts them (SEOkicks' fake sees the connections closed, well
// before the 30 s the client would wait), no further call starts, every row not done ends `cancelled`, and the
// job ends `cancelled` with one callback. The fake holds every answer for a minute, so the calls are in flight
// for as long as the test needs, whatever the machine's speed.
import { describe, expect, it } from 'vitest';
import { queueEntries } from '../../src/jobs/queues.ts';
import { useEngine } from '../helpers/engine.ts';
import { problemOf } from '../helpers/http.ts';
import { act, callbacksOf, create, jobOf, resultsOf } from '../helpers/transitions.ts';

const CONCURRENCY = 2;
const t = useEngine({
  fakes: { seokicks: { latencyMs: 60_000 } },
  env: {
    JOBS_SEOKICKS_CONCURRENCY: String(CONCURRENCY),
    // Heartbeats often, for the catch-up of a missed notification below.
    TEST_HEARTBEAT_MS: '200',
  },
});

const domainOf = (r: { query: URLSearchParams }) => r.query.get('query');
/** Queue entries of the job still waiting or running: none left means nothing more can start for it. */
const open = async (id: string) =>
  (await queueEntries(t.api.queue, 'seokicks', id)).filter((e) => e.state === 'created' || e.state === 'retry' || e.state === 'active')
    .length;

describe('POST /v1/jobs/{id}/cancel with calls in flight in a worker process', () => {
  it('aborts the calls, starts none after, ends every row not done as cancelled, and sends one callback', async () => {
    const domains = Array.from({ length: 6 }, (_, i) => `h${i}.example`);
    const id = await create(t.call, { domains, job_types: ['seokicks'], webhook_url: `${t.receiver.url}/cb` });
    await expect.poll(() => t.fakes.seokicks.requests.length).toBe(CONCURRENCY);
    const inFlight = t.fakes.seokicks.requests.map(domainOf);

    const res = await act(t.call, id, 'cancel');
    expect(res.status).toBe(200);
    const answered = (await res.json()) as { status: string; finished_at: string | null; progress: Record<string, number> };
    expect(answered.status).toBe('cancelled');
    expect(answered.finished_at).not.toBeNull();
    expect(answered.progress).toEqual({ total: 6, succeeded: 0, failed: 6, pending: 0 });
    const mark = t.fakes.seokicks.requests.length;

    // The worker aborts both calls: the fake sees each connection closed before it answered.
    await expect.poll(() => t.fakes.seokicks.abandoned.map(domainOf).sort()).toEqual([...inFlight].sort());
    await expect.poll(() => open(id), { timeout: 20_000, interval: 100 }).toBe(0);
    expect(t.fakes.seokicks.requests.slice(mark)).toEqual([]);

    const results = await resultsOf(t.call, id);
    expect(results.map((r) => r.domain)).toEqual(domains);
    expect(results.every((r) => r.status === 'error' && r.error?.code === 'cancelled')).toBe(true);
    expect(await jobOf(t.call, id)).toMatchObject({ status: 'cancelled', progress: { total: 6, succeeded: 0, failed: 6, pending: 0 } });

    const [callback] = await t.receiver.waitFor('/cb', 1);
    expect(JSON.parse(callback!.body.toString('utf8'))).toMatchObject({ job_id: id, status: 'cancelled' });
    expect(await callbacksOf(t.db, id)).toEqual(['job.cancelled']);

    // Ended for good: every transition is refused now, and nothing more is sent.
    for (const action of ['cancel', 'pause', 'resume', 'retry'] as const) {
      const again = await act(t.call, id, action);
      expect(again.status, action).toBe(409);
      expect((await problemOf(again)).job_status).toBe('cancelled');
    }
    expect(await callbacksOf(t.db, id)).toEqual(['job.cancelled']);
    expect(t.receiver.forPath('/cb')).toHaveLength(1);
  });

  it('a worker that missed the notification finds the cancelled job at its next heartbeat and aborts it', async () => {
    const domains = ['m0.example', 'm1.example', 'm2.example'];
    const id = await create(t.call, { domains, job_types: ['seokicks'] });
    const before = t.fakes.seokicks.requests.length;
    const abandoned = t.fakes.seokicks.abandoned.length;
    await expect.poll(() => t.fakes.seokicks.requests.length - before).toBe(CONCURRENCY);
    // The job ended as a cancel ends it, but without the NOTIFY: only the heartbeat's look at PostgreSQL is left.
    await t.db.pool.query(`UPDATE jobs SET status = 'cancelled', finished_at = now() WHERE id = $1`, [id]);
    await expect.poll(() => t.fakes.seokicks.abandoned.length - abandoned).toBe(CONCURRENCY);
    await expect.poll(() => open(id), { timeout: 20_000, interval: 100 }).toBe(0);
    // The entries it aborted end their rows too, and the one never started is ended by the entry that reaches it.
    const results = await resultsOf(t.call, id);
    expect(results.map((r) => r.error?.code)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(t.fakes.seokicks.requests.length - before).toBe(CONCURRENCY);
  });
});
