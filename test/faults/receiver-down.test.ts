// A webhook receiver that is down (connection refused) for longer than the first two retry waits, while mail
// and job callbacks are due, every service its own process. Each delivery must reach the receiver exactly
// once, on a later attempt of its schedule, or be given up by it: none lost, none doubled.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Fake } from '../../src/dev/fakes/server.ts';
import { startSeokicksFake } from '../../src/dev/fakes/seokicks.ts';
import { bearer, JWT_SECRET, tokenOf } from '../helpers/accounts.ts';
import { runCli, startCli, type RunningCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { SmtpClient } from '../helpers/smtp.ts';
import { report } from './report.ts';

const DOMAIN = 'faults.test';
/** Retry waits of both services here: the receiver stays down past the first two (1 s + 2 s). */
const WAITS = '1s,2s,6s';
const DOWN_MS = 4000;
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

  await sleep(Math.max(0, DOWN_MS - (performance.now() - downAt)));
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
  const deadline = Date.now() + 60_000;
  let rows: { id: string; service: string; state: string; attempts: number }[] = [];
  for (;;) {
    ({ rows } = await db.pool.query(`SELECT id, service, state, attempts FROM deliveries ORDER BY created_at`));
    if (rows.length === MESSAGES + JOBS && rows.every((r) => r.state !== 'pending')) break;
    if (Date.now() > deadline) throw new Error(`deliveries not settled: ${JSON.stringify(rows)}`);
    await sleep(200);
  }
  const seen = new Map<string, number>();
  for (const r of received) seen.set(r.delivery, (seen.get(r.delivery) ?? 0) + 1);
  const delivered = rows.filter((r) => r.state === 'delivered');
  const lost = delivered.filter((r) => !seen.has(r.id)).length + rows.filter((r) => r.state !== 'delivered' && r.state !== 'failed').length;
  const duplicated = [...seen.values()].filter((n) => n > 1).length;
  report({
    scenario: 'webhook-receiver-down',
    load: `${MESSAGES} mail webhooks and ${JOBS} job callbacks due at once`,
    injected: `receiver refusing connections for ${(DOWN_MS / 1000).toFixed(1)} s (waits ${WAITS}: longer than the first two)`,
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
  // still down or just after it is back, depending on when each delivery started; attempt 4 is the last).
  for (const r of received) expect(['3', '4']).toContain(r.attempt);
  expect(received.filter((r) => r.path === '/mail')).toHaveLength(MESSAGES);
  expect(received.filter((r) => r.path === '/jobs')).toHaveLength(JOBS);
});
