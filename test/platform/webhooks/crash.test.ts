// A worker SIGKILLed while a delivery is in flight: another worker completes it (at most a repeat attempt).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withTransaction } from '../../../src/platform/db/index.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { startQueue, stopQueue, type Queue } from '../../../src/platform/queue.ts';
import { createDeliveryQueue, enqueueDelivery } from '../../../src/platform/webhooks/index.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';

const WORKER = fileURLToPath(new URL('../../fixtures/delivery-worker.ts', import.meta.url));
let db: TestDatabase;
let queue: Queue;
let receiver: Receiver;
const children: ChildProcess[] = [];

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER], {
    env: { PATH: process.env.PATH, DATABASE_URL: db.url, WEBHOOK_SECRET: 'c'.repeat(64) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('worker ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  queue = await startQueue(db.url, createLogger({ level: 'silent' }));
  await createDeliveryQueue(queue);
  // The first request hangs (the worker will die holding it); later ones succeed.
  receiver = await startReceiver((_path, n) => (n === 0 ? 'hang' : 200));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await stopQueue(queue);
  await receiver.close();
  await db.pool.end();
});

it('a delivery in flight when its worker is SIGKILLed is completed by another worker', { timeout: 90_000 }, async () => {
  const first = await startWorker();
  const id = await withTransaction(db.pool, (tx) =>
    enqueueDelivery(tx, queue, {
      service: 'jobs',
      event: 'job.finished',
      subject: 's',
      url: `${receiver.url}/hook`,
      body: '{"a":1}',
      secretRef: 'r',
    }),
  );
  await receiver.waitFor('/hook', 1);
  first.kill('SIGKILL');
  await startWorker();

  const [, second] = await receiver.waitFor('/hook', 2, 60_000);
  expect(second!.headers['x-metrics-delivery']).toBe(id);
  expect(second!.body.toString()).toBe('{"a":1}');
  const delivery = async () =>
    (await db.pool.query('SELECT state, next_attempt_at FROM deliveries WHERE id = $1', [id])).rows[0] as {
      state: string;
      next_attempt_at: Date | null;
    };
  await expect.poll(async () => (await delivery()).state, { timeout: 10_000, interval: 50 }).toBe('delivered');
  // The killed attempt left no row; the repeat is recorded once, and no further attempt is scheduled (the next
  // attempt's time and queue entry would be written with the record): nothing more arrives.
  const attempts = await db.pool.query('SELECT attempt, status_code FROM delivery_attempts WHERE delivery_id = $1', [id]);
  expect(attempts.rows).toEqual([{ attempt: 1, status_code: 200 }]);
  expect((await delivery()).next_attempt_at).toBeNull();
  expect(receiver.forPath('/hook')).toHaveLength(2);
});
