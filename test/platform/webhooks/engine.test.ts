// The webhook engine end to end: a real PostgreSQL, pg-boss, and a receiver on a real socket.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../../src/platform/db/index.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { allowEverything, createOutbound } from '../../../src/platform/net/index.ts';
import { startQueue, stopQueue, type Queue } from '../../../src/platform/queue.ts';
import {
  createDeliveryQueue,
  deliveryLog,
  enqueueDelivery,
  startDeliveryWorker,
  type WebhookService,
} from '../../../src/platform/webhooks/index.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { runCli } from '../../helpers/cli.ts';

const DELAYS = [300, 600, 900];
const SECRETS = new Map([
  ['job-1', 'a'.repeat(64)],
  ['inbox-1', 'b'.repeat(48)],
]);
const resolveSecrets = async (refs: string[]) => new Map(refs.filter((r) => SECRETS.has(r)).map((r) => [r, SECRETS.get(r)!]));
const jobs: WebhookService = { name: 'jobs', headerPrefix: 'X-Metrics', retryDelaysMs: DELAYS, sendEventHeader: false, resolveSecrets };
const mail: WebhookService = { name: 'mail', headerPrefix: 'X-Mail', retryDelaysMs: DELAYS, sendEventHeader: true, resolveSecrets };

let db: TestDatabase;
let queue: Queue;
let receiver: Receiver;
const outbound = createOutbound({ policy: allowEverything });
const log = createLogger({ level: 'silent' });

// Each test posts to its own path; the path says how the receiver answers, e.g. /seq/500,500,200.
const script = (path: string, n: number): number | 'hang' => {
  const plan = path.split('/')[2]!.split(',');
  const step = plan[Math.min(n, plan.length - 1)]!;
  return step === 'hang' ? 'hang' : Number(step);
};

beforeAll(async () => {
  db = await createTestDatabase();
  queue = await startQueue(db.url, log);
  await createDeliveryQueue(queue);
  receiver = await startReceiver(script);
  await startDeliveryWorker({
    pool: db.pool,
    queue,
    outbound,
    services: [jobs, mail],
    log,
    userAgent: 'domainkit-test',
    attemptTimeoutMs: 500,
  });
});
afterAll(async () => {
  await stopQueue(queue);
  await receiver.close();
  await outbound.close();
  await db.pool.end();
});

function enqueue(path: string, body: string, service: WebhookService = jobs, secretRef = 'job-1') {
  return withTransaction(db.pool, (tx) =>
    enqueueDelivery(tx, queue, {
      service: service.name,
      event: 'job.finished',
      subject: path,
      url: `${receiver.url}${path}`,
      body,
      secretRef,
    }),
  );
}

/** Waits until the delivery has left `pending`; its state and attempts. */
async function settled(id: string, timeoutMs = 20_000): Promise<{ state: string; attempts: number }> {
  let row = { state: 'pending', attempts: 0 };
  await expect
    .poll(
      async () => {
        row = (await db.pool.query<typeof row>('SELECT state, attempts FROM deliveries WHERE id = $1', [id])).rows[0]!;
        return row.state;
      },
      { timeout: timeoutMs, interval: 50 },
    )
    .not.toBe('pending');
  return row;
}

async function attemptsOf(id: string) {
  const { rows } = await db.pool.query(
    'SELECT attempt, status_code, error, outcome FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
    [id],
  );
  return rows;
}

describe('a delivery', () => {
  it('is signed over the exact bytes, non-ASCII included, with the service headers', async () => {
    const body = JSON.stringify({ job_id: 'j', status: 'completed', note: 'naïve café — 東京 ✓' });
    const id = await enqueue('/seq/200/sign', body);
    const [request] = await receiver.waitFor('/seq/200/sign', 1);
    expect(request!.body.toString('utf8')).toBe(body);
    const expected = Buffer.from(`sha256=${createHmac('sha256', SECRETS.get('job-1')!).update(request!.body).digest('hex')}`);
    const header = Buffer.from(String(request!.headers['x-metrics-signature']));
    expect(header.length === expected.length && timingSafeEqual(header, expected)).toBe(true);
    expect(request!.headers['x-metrics-delivery']).toBe(id);
    expect(request!.headers['x-metrics-attempt']).toBe('1');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-metrics-event']).toBeUndefined();
    expect(await settled(id)).toEqual({ state: 'delivered', attempts: 1 });
  });

  it('uses the mail headers, with the event, for the mail service', async () => {
    await enqueue('/seq/200/mail', '{"event":"message.received"}', mail, 'inbox-1');
    const [request] = await receiver.waitFor('/seq/200/mail', 1);
    expect(request!.headers['x-mail-event']).toBe('job.finished');
    expect(request!.headers['x-mail-attempt']).toBe('1');
    expect(request!.headers['x-mail-signature']).toBe(
      `sha256=${createHmac('sha256', SECRETS.get('inbox-1')!).update(request!.body).digest('hex')}`,
    );
  });
});

describe('retries', () => {
  it('500, 500, 200 → exactly 3 attempts, spaced by the schedule', async () => {
    const path = '/seq/500,500,200/a';
    const id = await enqueue(path, '{}');
    expect(await settled(id)).toEqual({ state: 'delivered', attempts: 3 });
    const requests = receiver.forPath(path);
    expect(requests).toHaveLength(3);
    expect(requests.map((r) => r.headers['x-metrics-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(requests.map((r) => r.headers['x-metrics-delivery']))).toEqual(new Set([id]));
    // Each gap is at least its configured wait: the next attempt is scheduled only once the receiver has answered
    // the previous one, so a slow machine can only widen a gap. (A lost schedule never settles: settled() fails.)
    for (const [i, wait] of DELAYS.slice(0, 2).entries()) {
      expect(requests[i + 1]!.at - requests[i]!.at).toBeGreaterThanOrEqual(wait);
    }
    expect((await attemptsOf(id)).map((a) => [a.status_code, a.outcome])).toEqual([
      [500, 'retry'],
      [500, 'retry'],
      [200, 'delivered'],
    ]);
  });

  it('400 → exactly one attempt, dropped', async () => {
    const path = '/seq/400,200/b';
    const id = await enqueue(path, '{}');
    expect(await settled(id)).toEqual({ state: 'dropped', attempts: 1 });
    // No retry is scheduled: the next attempt's time and its queue entry are written in one transaction.
    const { rows } = await db.pool.query('SELECT next_attempt_at FROM deliveries WHERE id = $1', [id]);
    expect(rows).toEqual([{ next_attempt_at: null }]);
    expect(receiver.forPath(path)).toHaveLength(1);
    expect(await attemptsOf(id)).toEqual([{ attempt: 1, status_code: 400, error: null, outcome: 'dropped' }]);
  });

  it('a 3xx is not followed and not retried', async () => {
    const id = await enqueue('/seq/302/c', '{}');
    expect(await settled(id)).toEqual({ state: 'dropped', attempts: 1 });
  });

  it('a hanging receiver times out and is retried; 4 failures → given up with 4 rows in the log', async () => {
    const path = '/seq/hang/d';
    const id = await enqueue(path, '{}');
    expect(await settled(id, 30_000)).toEqual({ state: 'failed', attempts: 4 });
    expect(receiver.forPath(path)).toHaveLength(4);
    expect((await attemptsOf(id)).map((a) => [a.error, a.outcome])).toEqual([
      ['timeout', 'retry'],
      ['timeout', 'retry'],
      ['timeout', 'retry'],
      ['timeout', 'failed'],
    ]);
    const logRows = await deliveryLog(db.pool, { service: 'jobs', subject: path, limit: 10 });
    expect(logRows).toHaveLength(4);
  });

  it('an unreachable receiver (connection refused) is retried like a 5xx', async () => {
    const id = await withTransaction(db.pool, (tx) =>
      enqueueDelivery(tx, queue, {
        service: 'jobs',
        event: 'e',
        subject: 'refused',
        url: 'http://127.0.0.1:1/x',
        body: '{}',
        secretRef: 'job-1',
      }),
    );
    expect(await settled(id)).toEqual({ state: 'failed', attempts: 4 });
    expect((await attemptsOf(id)).every((a) => a.error === 'connect')).toBe(true);
  });
});

describe('durability', () => {
  it('a delivery whose transaction rolls back is never sent', async () => {
    const path = '/seq/200/rollback';
    await expect(
      withTransaction(db.pool, async (tx) => {
        await enqueueDelivery(tx, queue, {
          service: 'jobs',
          event: 'e',
          subject: path,
          url: `${receiver.url}${path}`,
          body: '{}',
          secretRef: 'job-1',
        });
        throw new Error('the event failed');
      }),
    ).rejects.toThrow('the event failed');
    await enqueue('/seq/200/after-rollback', '{}');
    await receiver.waitFor('/seq/200/after-rollback', 1);
    expect(receiver.forPath(path)).toHaveLength(0);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM deliveries WHERE subject = $1', [path])).rows[0].n).toBe(0);
  });

  it('a delivery whose secret is gone is dropped without sending', async () => {
    const path = '/seq/200/orphan';
    const id = await withTransaction(db.pool, (tx) =>
      enqueueDelivery(tx, queue, {
        service: 'jobs',
        event: 'e',
        subject: path,
        url: `${receiver.url}${path}`,
        body: '{}',
        secretRef: 'deleted-job',
      }),
    );
    expect(await settled(id)).toEqual({ state: 'dropped', attempts: 0 });
    expect(receiver.forPath(path)).toHaveLength(0);
  });
});

describe('domainkit deliveries', () => {
  it('prints the attempts of one job as a table', async () => {
    const path = '/seq/503,201/cli';
    const id = await enqueue(path, '{}');
    await settled(id);
    const result = await runCli(['deliveries', '--job', path], { DATABASE_URL: db.url });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^delivery\s+event\s+subject\s+url\s+state\s+attempt\s+at\s+result\s+ms$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(id);
    expect(lines[1]).toMatch(/delivered\s+1\s+\S+\s+503 retry/);
    expect(lines[2]).toMatch(/delivered\s+2\s+\S+\s+201 delivered/);
    expect(result.stdout).not.toContain(SECRETS.get('job-1'));
  });

  it('says so when there is nothing to show, and refuses --job with --inbox', async () => {
    expect((await runCli(['deliveries', '--inbox', 'Nobody@Example.com'], { DATABASE_URL: db.url })).stdout).toBe('no deliveries\n');
    const both = await runCli(['deliveries', '--job', 'x', '--inbox', 'y'], { DATABASE_URL: db.url });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('not both');
  });
});

describe('a queue entry that runs again after its attempt was recorded', () => {
  it('does not make the next attempt early', async () => {
    const path = '/seq/500,200/rerun';
    const id = await enqueue(path, '{}');
    await receiver.waitFor(path, 1);
    // Wait until attempt 1 is recorded (its retry is scheduled 300 ms later), then replay attempt 1's entry,
    // as pg-boss would after a worker died between recording and completing it.
    await expect.poll(async () => (await attemptsOf(id)).length, { timeout: 10_000, interval: 10 }).toBeGreaterThanOrEqual(1);
    await queue.send('webhook-delivery', { deliveryId: id, attempt: 1 });
    expect(await settled(id)).toEqual({ state: 'delivered', attempts: 2 });
    const requests = receiver.forPath(path);
    expect(requests).toHaveLength(2);
    // Attempt 2 waited for its schedule (a replay that attempted at once would come sooner; slowness only widens it).
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(DELAYS[0]!);
  });
});
