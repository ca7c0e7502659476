// Resume and retry with a worker in another process. Resume: a paused job continues where it stopped, and the
// rows already done are not fetched again (the site counts requests per domain); the site holds its answers
// while a test needs calls in flight. Retry: the error rows chosen run again (SEOkicks' fake: `flaky.` answers
// 500 once, `auth-fail.` always 401; no retries within a run), the others are not asked again, and the job
// ends again with a callback of its own.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queueEntries } from '../../src/jobs/queues.ts';
import { useEngine } from '../helpers/engine.ts';
import { problemOf } from '../helpers/http.ts';
import { act, callbacksOf, create, jobOf, resultsOf, statusOf } from '../helpers/transitions.ts';

const CONCURRENCY = 2;
/** The site keeps back the answers to hosts starting with this, until `release()`. */
let holding: string | undefined;
const held: ServerResponse[] = [];
const release = () => {
  holding = undefined;
  for (const answer of held.splice(0)) answer.end('ok');
};

const t = useEngine({
  sites: {
    handle: (host, _req, res) => {
      if (holding === undefined || !host.startsWith(holding)) return false;
      held.push(res);
      return true;
    },
  },
  fakes: { seokicks: {} },
  env: { JOBS_PING_CONCURRENCY: String(CONCURRENCY), TEST_RETRY_DELAYS_MS: '' },
});
// Before the sites close (useEngine's own afterAll runs after this one): they wait for the answers held.
afterAll(release);

/** Queue entries of the job still waiting or running. */
const open = async (source: string, id: string) =>
  (await queueEntries(t.api.queue, source, id)).filter((e) => e.state === 'created' || e.state === 'retry' || e.state === 'active').length;
/** How often the site (ping) or the fake (seokicks) was asked about each of these domains. */
const siteCounts = (domains: string[]) => domains.map((d) => t.sites.requests.filter((r) => r.host === d).length);
const fakeCounts = (domains: string[]) => domains.map((d) => t.fakes.seokicks.requests.filter((r) => r.query.get('query') === d).length);

/** A ping job whose first two tasks are held at the site, then paused. */
async function pausedWithCallsHeld(prefix: string, count: number): Promise<{ id: string; domains: string[]; path: string }> {
  holding = prefix;
  const domains = Array.from({ length: count }, (_, i) => `${prefix}${i}.example`);
  const path = `/cb/${prefix}`;
  const id = await create(t.call, { domains, job_types: ['ping'], webhook_url: `${t.receiver.url}${path}` });
  await expect.poll(() => held.length).toBe(CONCURRENCY);
  const paused = await act(t.call, id, 'pause');
  expect(((await paused.json()) as { status: string }).status).toBe('paused');
  return { id, domains, path };
}

describe('POST /v1/jobs/{id}/resume', () => {
  it('continues where the job stopped: the rows done are not fetched again, and it ends with one callback', async () => {
    const { id, domains, path } = await pausedWithCallsHeld('ra', 10);
    release();
    // The two calls in flight settle; the other entries are taken off the queue without work.
    await expect.poll(() => open('ping', id), { timeout: 20_000, interval: 100 }).toBe(0);
    expect((await jobOf(t.call, id)).progress).toEqual({ total: 10, succeeded: 2, failed: 0, pending: 8 });
    expect(siteCounts(domains).reduce((a, b) => a + b)).toBe(2);

    const res = await act(t.call, id, 'resume');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('running');
    await expect.poll(() => statusOf(t.call, id)).toBe('completed');
    expect(siteCounts(domains)).toEqual(domains.map(() => 1));
    expect((await resultsOf(t.call, id)).map((r) => r.status)).toEqual(domains.map(() => 'ok'));
    await t.receiver.waitFor(path, 1);
    expect(await callbacksOf(t.db, id)).toEqual(['job.completed']);
  });

  it('an entry made before the pause does nothing after a resume: the new run alone fetches, each row once', async () => {
    // Another job holds both lanes, so the job's one entry is still waiting when it is paused and resumed.
    holding = 'r';
    const blocker = await create(t.call, { domains: ['rb0.example', 'rb1.example'], job_types: ['ping'] });
    await expect.poll(() => held.length).toBe(CONCURRENCY);
    const id = await create(t.call, { domains: ['rt0.example'], job_types: ['ping'], webhook_url: `${t.receiver.url}/cb/rt` });
    expect((await act(t.call, id, 'pause')).status).toBe(200);
    const resumed = await act(t.call, id, 'resume');
    expect(((await resumed.json()) as { status: string }).status).toBe('queued'); // none of its tasks had started
    // The lanes free up and take both entries, the old run's and the new one's; the site still holds rt0.
    for (const answer of held.splice(0)) answer.end('ok');
    await expect.poll(() => statusOf(t.call, blocker)).toBe('completed');
    await expect.poll(() => open('ping', id), { timeout: 20_000, interval: 100 }).toBe(1);
    await expect.poll(() => held.length).toBe(1);
    expect(siteCounts(['rt0.example'])).toEqual([1]);
    release();
    await expect.poll(() => statusOf(t.call, id)).toBe('completed');
    expect(siteCounts(['rt0.example'])).toEqual([1]);
    await t.receiver.waitFor('/cb/rt', 1);
    expect(await callbacksOf(t.db, id)).toEqual(['job.completed']);
  });

  it('a paused job whose calls in flight finished its last rows ends when resumed, with its callback', async () => {
    const { id, domains, path } = await pausedWithCallsHeld('rc', CONCURRENCY);
    release();
    await expect.poll(async () => (await jobOf(t.call, id)).progress.pending).toBe(0);
    expect(await statusOf(t.call, id)).toBe('paused');
    expect(await callbacksOf(t.db, id)).toEqual([]);

    const res = await act(t.call, id, 'resume');
    expect(((await res.json()) as { status: string }).status).toBe('completed');
    expect(siteCounts(domains)).toEqual(domains.map(() => 1));
    await t.receiver.waitFor(path, 1);
    expect(await callbacksOf(t.db, id)).toEqual(['job.completed']);
  });
});

describe('POST /v1/jobs/{id}/retry', () => {
  const domains = ['ok-a.example', 'flaky.a.example', 'auth-fail.a.example'];
  let id: string;
  const codes = async () => (await resultsOf(t.call, id)).map((r) => r.error?.code ?? 'ok');

  beforeAll(async () => {
    id = await create(t.call, { domains, job_types: ['seokicks'], webhook_url: `${t.receiver.url}/cb/retry` });
    await vi.waitFor(async () => expect(await statusOf(t.call, id)).toBe('completed'), { timeout: 10_000, interval: 50 });
  });

  it('runs the transient error rows again, and nothing else; the job ends again with a new callback', async () => {
    expect(await codes()).toEqual(['ok', 'upstream_unavailable', 'upstream_auth']);
    expect(fakeCounts(domains)).toEqual([1, 1, 1]);
    expect(await callbacksOf(t.db, id)).toEqual(['job.completed']);

    const res = await act(t.call, id, 'retry');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'running', finished_at: null, progress: { succeeded: 1, failed: 1, pending: 1 } });
    await expect.poll(() => statusOf(t.call, id)).toBe('completed');
    expect(await codes()).toEqual(['ok', 'ok', 'upstream_auth']);
    expect(fakeCounts(domains)).toEqual([1, 2, 1]);
    expect(await callbacksOf(t.db, id)).toEqual(['job.completed', 'job.completed']);
    const got = await t.receiver.waitFor('/cb/retry', 2);
    expect(new Set(got.map((r) => r.headers['x-metrics-delivery'])).size).toBe(2);
  });

  it('with no transient error row left, a retry is 409 and changes nothing', async () => {
    const res = await act(t.call, id, 'retry', { errors: 'transient' });
    expect(res.status).toBe(409);
    const problem = await problemOf(res);
    expect(problem).toMatchObject({ code: 'conflict', job_status: 'completed' });
    expect(problem.detail).toMatch(/no transient error rows/);
    expect(await callbacksOf(t.db, id)).toHaveLength(2);
  });

  it('errors: "all" runs every error row again', async () => {
    expect((await act(t.call, id, 'retry', { errors: 'all' })).status).toBe(200);
    await expect.poll(() => statusOf(t.call, id)).toBe('completed');
    expect(fakeCounts(domains)).toEqual([1, 2, 2]);
    expect(await codes()).toEqual(['ok', 'ok', 'upstream_auth']);
    expect(await callbacksOf(t.db, id)).toEqual(['job.completed', 'job.completed', 'job.completed']);
  });

  it('refuses a body it does not know with 400', async () => {
    for (const body of [{ errors: 'some' }, { errors: 'all', extra: 1 }]) {
      const res = await act(t.call, id, 'retry', body);
      expect(res.status).toBe(400);
      expect((await problemOf(res)).code).toBe('validation_failed');
    }
  });
});
