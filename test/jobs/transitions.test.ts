// Resume, retry, hard cancel (and soft cancel) from every status of src/jobs/job-status.ts: 200 and the new
// status where the transition applies, 409 `conflict` with `job_status` and the job untouched where it does not,
// and one callback per terminal transition. Each case brings a job of its own to its status for real: without
// a worker for queued, paused and cancelled; with a worker process for running (its ping held by the site),
// completed and failed (SEOkicks' fake: `flaky.` answers 500 once, so a retry of it succeeds).
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fake } from '../../src/dev/fakes/server.ts';
import { startSeokicksFake } from '../../src/dev/fakes/seokicks.ts';
import type { RunningCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../helpers/engine.ts';
import { problemOf } from '../helpers/http.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../helpers/jobs.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { act, callbacksOf, create, jobOf, statusOf, type Action, type Call } from '../helpers/transitions.ts';

type Status = 'queued' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';

let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let fake: Fake;
let receiver: Receiver;
let worker: RunningCli | undefined;
let call: Call;
/** Answers the site keeps back: hosts `hold-*` are running until the end. */
const held: ServerResponse[] = [];
/** Every job made, with the callback path it was given and the retries it was granted. */
const jobs = new Map<string, { path: string; retries: number }>();

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db, { env: { ALLOW_PRIVATE_NETWORK: 'true' } });
  sites = await startSites({
    handle: (host, _req, res) => {
      if (!host.startsWith('hold-')) return false;
      held.push(res);
      return true;
    },
  });
  fake = await startSeokicksFake({ apiKey: 'sk' });
  receiver = await startReceiver(() => 200);
  call = client(api.url, await tokenFor(db, 'states'));
});
afterAll(async () => {
  for (const answer of held.splice(0)) answer.end('ok');
  await worker?.stop();
  await Promise.all([api.close(), sites.close(), fake.close(), receiver.close()]);
  await db.pool.end();
});

const tag = () => randomUUID().slice(0, 8);

async function made(domains: string[], source: string): Promise<string> {
  const path = `/cb/${tag()}`;
  const id = await create(call, { domains, job_types: [source], webhook_url: `${receiver.url}${path}` });
  jobs.set(id, { path, retries: 0 });
  return id;
}

/** A new job in `status`, reached the way a client and the engine reach it. */
async function jobIn(status: Status): Promise<string> {
  const t = tag();
  switch (status) {
    case 'queued':
      return made([`q-${t}.example`], 'ping');
    case 'paused':
    case 'cancelled': {
      const id = await made([`q-${t}.example`], 'ping');
      expect((await act(call, id, status === 'paused' ? 'pause' : 'cancel')).status).toBe(200);
      return id;
    }
    case 'running': {
      const id = await made([`hold-${t}.example`], 'ping');
      await expect.poll(() => sites.requests.some((r) => r.host === `hold-${t}.example`)).toBe(true);
      return id;
    }
    case 'completed':
    case 'failed': {
      const domains = status === 'completed' ? [`ok-${t}.example`, `flaky.c-${t}.example`] : [`flaky.f-${t}.example`];
      const id = await made(domains, 'seokicks');
      await expect.poll(() => statusOf(call, id)).toBe(status);
      return id;
    }
  }
}

interface Case {
  from: Status;
  action: Action;
  /** The status the answer shows (200), or nothing: 409 and the job as it was. */
  to?: Status;
}

const ACTIONS: Action[] = ['resume', 'retry', 'cancel', 'pause'];
/** Where each action applies, and what it makes (the table of docs/api/README.md, "Job states"). */
const APPLIES: Record<Action, Partial<Record<Status, Status>>> = {
  resume: { paused: 'queued' }, // none of its tasks had started: back to queued
  retry: { completed: 'running', failed: 'running' },
  cancel: { queued: 'cancelled', running: 'cancelled', paused: 'cancelled' },
  pause: { queued: 'paused', running: 'paused', paused: 'paused' },
};
const casesFrom = (statuses: Status[]): Case[] =>
  statuses.flatMap((from) => ACTIONS.map((action) => ({ from, action, ...(APPLIES[action][from] ? { to: APPLIES[action][from] } : {}) })));

async function runCase({ from, action, to }: Case): Promise<void> {
  const id = await jobIn(from);
  const before = await callbacksOf(db, id);
  const res = await act(call, id, action);
  if (to === undefined) {
    expect(res.status).toBe(409);
    const problem = await problemOf(res);
    expect(problem.code).toBe('conflict');
    expect(problem.job_status).toBe(from);
    expect(await statusOf(call, id)).toBe(from);
    expect(await callbacksOf(db, id)).toEqual(before);
    return;
  }
  expect(res.status).toBe(200);
  expect(((await res.json()) as { status: string }).status).toBe(to);
  if (action === 'cancel') {
    // Ended by the request itself: its callback is enqueued with it, the job's one and only.
    expect(before).toEqual([]);
    expect(await callbacksOf(db, id)).toEqual(['job.cancelled']);
    const job = await jobOf(call, id);
    expect(job.finished_at).not.toBeNull();
    expect(job.progress.pending).toBe(0);
  } else if (action === 'retry') {
    jobs.get(id)!.retries++;
    // It runs again and ends again (the flaky rows now succeed): a second callback, its own.
    await expect.poll(() => statusOf(call, id)).toBe('completed');
    expect(await callbacksOf(db, id)).toEqual([`job.${from}`, 'job.completed']);
  } else {
    expect(await callbacksOf(db, id)).toEqual(before);
  }
}

describe('from the statuses a job has without a worker', () => {
  it.each(casesFrom(['queued', 'paused', 'cancelled']))('$action from $from → $to (409 when none)', runCase);
});

describe('from the statuses the engine makes, with a worker process', () => {
  beforeAll(async () => {
    worker = await startWorker(
      db.url,
      sites,
      { '*.example': '127.0.0.1' },
      { JOBS_PING_CONCURRENCY: '16', SEOKICKS_API_KEY: 'sk', SEOKICKS_BASE_URL: fake.url, TEST_RETRY_DELAYS_MS: '' },
    );
  });

  it.each(casesFrom(['running', 'completed', 'failed']))('$action from $from → $to (409 when none)', runCase);

  it('every job sent one callback per terminal transition, and none while paused', async () => {
    for (const answer of held.splice(0)) answer.end('ok');
    // Jobs left queued or running (409 cases, resumed jobs) now end; paused ones never do.
    const open = async () => {
      const statuses = await Promise.all([...jobs.keys()].map((id) => statusOf(call, id)));
      return statuses.filter((s) => s === 'queued' || s === 'running').length;
    };
    await expect.poll(open, { timeout: 20_000 }).toBe(0);
    for (const [id, { path, retries }] of jobs) {
      const status = await statusOf(call, id);
      const expected = status === 'paused' ? 0 : 1 + retries;
      await expect.poll(() => receiver.forPath(path).length, { timeout: 20_000 }).toBe(expected);
      const events = await callbacksOf(db, id);
      expect(events, `${id} (${status})`).toHaveLength(expected);
      // What the receiver got is what was enqueued (deliveries may arrive in either order), each its own delivery.
      const bodies = receiver.forPath(path).map((r) => JSON.parse(r.body.toString('utf8')) as { job_id: string; status: string });
      expect(bodies.map((b) => `job.${b.status}`).sort()).toEqual([...events].sort());
      expect(bodies.every((b) => b.job_id === id)).toBe(true);
      expect(events.at(-1) ?? `job.${status}`).toBe(`job.${status}`);
      expect(new Set(receiver.forPath(path).map((r) => r.headers['x-metrics-delivery'])).size).toBe(expected);
    }
  });
});
