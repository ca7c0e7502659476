// A webhook receiver that is down (connection refused) past the first two retry waits, while mail and job
// callbacks are due, every service its own process. Each delivery must reach the receiver exactly once, on a
// later attempt of its schedule: none lost, none doubled. "Past the first two waits" is read from the delivery
// log, not from a clock: the receiver comes back once every delivery has recorded two failed attempts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { Fake } from '../../src/dev/fakes/server.ts';
import { startSeokicksFake } from '../../src/dev/fakes/seokicks.ts';
import { bearer, JWT_SECRET, tokenOf } from '../helpers/accounts.ts';
import { runCli, startCli, type RunningCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { SmtpClient } from '../helpers/smtp.ts';
import { report } from './report.ts';

const DOMAIN = 'faults.test';
/**
 * Retry waits of both services here. The receiver stays down until every delivery's second attempt has failed;
 * the last wait leaves room for the deliveries made first, whose third attempt may come before that.
 */
const WAITS = '1s,2s,10s';
const MESSAGES = 20;
const JOBS = 5;

let db: TestDatabase;
let seokicks: Fake;
const processes: RunningCli[] = [];
let receiver: Server | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  seokicks = await startSeokicksFake({ apiKey: 'sk', latencyMs: 10 });
  const env = {
    DATABASE_URL: db.url,
    HOST: '127.0.0.1',
    MAIL_DOMAINS: DOMAIN,
    JOBS_PORT: '0',
    MAIL_PORT: '0',
    SMTP_PORT: '0',
    ALLOW_PRIVATE_NETWORK: 'true',
    MAIL_JWT_SECRET: JWT_SECRET,
    MAIL_WEBHOOK_RETRY_DELAYS: WAITS,
    JOBS_WEBHOOK_RETRY_DELAYS: WAITS,
    SEOKICKS_API_KEY: 'sk',
    SEOKICKS_BASE_URL: seokicks.url,
  };
  for (const role of ['mail-api', 'smtp', 'jobs-api', 'worker']) processes.push(await startCli([role], env));
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop('SIGTERM')));
  await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
  await seokicks?.close();
  await db?.pool.end();
});

/** A port with nothing listening on it yet. */
async function reservePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

it('delivers every mail webhook and job callback once when the receiver comes back after the second wait', {
  timeout: 90_000,
}, async () => {
  const [mailUrl, jobsUrl] = [processes[0]!.addresses['mail-api']!, processes[2]!.addresses['jobs-api']!];
  const port = await reservePort();
  const hook = `http://127.0.0.1:${port}`;

  const created = await fetch(`${mailUrl}/api/v1/inboxes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(await tokenOf('faults', 3)) },
    body: JSON.stringify({ domain: DOMAIN, webhook_url: `${hook}/mail` }),
  });
  expect(created.status).toBe(201);
  const { address } = (await created.json()) as { address: string };
  const made = await runCli(
    ['jobs', 'keys', 'create', '--tenant', 'faults', '--name', 'k', '--scopes', 'jobs:create,jobs:read', '--json'],
    { DATABASE_URL: db.url },
  );
  const token = (JSON.parse(made.stdout) as { token: string }).token;

  // The receiver is down (nothing listens) from the first delivery on.
  const downAt = performance.now();
  const smtp = await SmtpClient.connect(Number(new URL(processes[1]!.addresses.smtp!).port));
  for (let i = 0; i < MESSAGES; i++) {
    expect((await smtp.send({ from: 'f@sender.test', to: [address] }, Buffer.from(`Subject: m${i}\r\n\r\nhi\r\n`))).code).toBe(250);
  }
  await smtp.quit();
  for (let i = 0; i < JOBS; i++) {
    const res = await fetch(`${jobsUrl}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domains: [`d${i}.example`], job_types: ['seokicks'], webhook_url: `${hook}/jobs` }),
    });
    expect(res.status).toBe(201);
  }

  // Every delivery (a callback is enqueued when its job ends) has failed twice: then the receiver comes back.
  const deliveries = () =>
    db.pool.query<{ id: string; service: string; state: string; attempts: number }>(
      `SELECT id, service, state, attempts FROM deliveries ORDER BY created_at`,
    );
  await expect
    .poll(async () => (await deliveries()).rows.filter((r) => r.attempts >= 2).length, { timeout: 30_000, interval: 100 })
    .toBe(MESSAGES + JOBS);
  const received: { path: string; delivery: string; attempt: string; at: number }[] = [];
  receiver = createServer((req, res) => {
    const delivery = String(req.headers['x-mail-delivery'] ?? req.headers['x-metrics-delivery']);
    const attempt = String(req.headers['x-mail-attempt'] ?? req.headers['x-metrics-attempt']);
    received.push({ path: req.url ?? '', delivery, attempt, at: performance.now() });
    req.resume();
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((r) => receiver!.listen(port, '127.0.0.1', r));
  const upAt = performance.now();

  // Every delivery ends: delivered, or failed after its 4 attempts.
  const rows = await vi.waitFor(
    async () => {
      const { rows } = await deliveries();
      if (rows.length < MESSAGES + JOBS || rows.some((r) => r.state === 'pending')) {
        throw new Error(`deliveries not settled: ${JSON.stringify(rows)}`);
      }
      return rows;
    },
    { timeout: 60_000, interval: 200 },
  );
  const seen = new Map<string, number>();
  for (const r of received) seen.set(r.delivery, (seen.get(r.delivery) ?? 0) + 1);
  const delivered = rows.filter((r) => r.state === 'delivered');
  const lost = delivered.filter((r) => !seen.has(r.id)).length + rows.filter((r) => r.state !== 'delivered' && r.state !== 'failed').length;
  const duplicated = [...seen.values()].filter((n) => n > 1).length;
  report({
    scenario: 'webhook-receiver-down',
    load: `${MESSAGES} mail webhooks and ${JOBS} job callbacks due at once`,
    injected: `receiver refusing connections until every delivery had failed twice, ${((upAt - downAt) / 1000).toFixed(1)} s (waits ${WAITS})`,
    lost,
    duplicated,
    // From the receiver's return to the last delivery reaching it.
    recoverySeconds: (Math.max(upAt, ...received.map((r) => r.at)) - upAt) / 1000,
    details: {
      states: Object.fromEntries(['delivered', 'failed', 'dropped'].map((s) => [s, rows.filter((r) => r.state === s).length])),
      attemptsOnArrival: [...new Set(received.map((r) => r.attempt))].sort(),
    },
  });
  expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
  expect(delivered).toHaveLength(MESSAGES + JOBS);
  // Down past the first two waits: nothing arrives before attempt 3 (attempt 3 lands while the receiver is
  // still down or after it is back, depending on when each delivery started; attempt 4 is the last).
  for (const r of received) expect(['3', '4']).toContain(r.attempt);
  expect(received.filter((r) => r.path === '/mail')).toHaveLength(MESSAGES);
  expect(received.filter((r) => r.path === '/jobs')).toHaveLength(JOBS);
});
