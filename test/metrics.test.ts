// Metrics of the real program, run as processes: `domainkit start` serves one /metrics on both APIs whose
// counters move after a job (tasks, provider requests, the callback) and a message; with METRICS_PORT, the
// roles without a listener (smtp, worker) serve theirs on that port, and the queue depth is read from
// PostgreSQL by the jobs API and the worker alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMozFake } from '../src/dev/fakes/moz.ts';
import type { Fake } from '../src/dev/fakes/server.ts';
import { startWaybackFake } from '../src/dev/fakes/wayback.ts';
import { startCli, type RunningCli } from './helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { client, tokenFor } from './helpers/jobs.ts';
import { DOMAIN, startMail, type Mail } from './helpers/mail.ts';
import { parseExposition, type Exposition } from './helpers/prometheus.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import nodemailer from 'nodemailer';

const LISTENERS = { HOST: '127.0.0.1', JOBS_PORT: '0', MAIL_PORT: '0', SMTP_PORT: '0', MAIL_DOMAINS: DOMAIN };

async function scrape(base: string): Promise<Exposition> {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/** Sends one message over SMTP to `port` and resolves once the server answered 250. */
async function sendTo(smtpAddress: string, to: string): Promise<void> {
  const { hostname, port } = new URL(smtpAddress);
  const transport = nodemailer.createTransport({ host: hostname, port: Number(port), secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ from: 'a@sender.test', to, subject: 'metrics', text: 'hello' });
  } finally {
    transport.close();
  }
}

async function inboxVia(mailApi: string): Promise<string> {
  const res = await fetch(`${mailApi}/api/v1/inboxes/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { address: string }).address;
}

describe('domainkit start: /metrics after a job and a message', () => {
  let db: TestDatabase;
  let moz: Fake;
  let receiver: Receiver;
  let running: RunningCli;

  beforeAll(async () => {
    db = await createTestDatabase();
    moz = await startMozFake({ token: 'moz-token' });
    receiver = await startReceiver(() => 200);
    running = await startCli(['start'], {
      ...LISTENERS,
      DATABASE_URL: db.url,
      ALLOW_PRIVATE_NETWORK: 'true',
      MOZ_TOKEN: 'moz-token',
      MOZ_BASE_URL: moz.url,
      JOBS_MOZ_RATE: '0',
    });
  });
  afterAll(async () => {
    await running?.stop();
    await Promise.all([moz?.close(), receiver?.close()]);
    await db?.pool.end();
  });

  it('counts tasks by source and outcome, provider requests, the callback, and requests by route', async () => {
    const jobsApi = running.addresses['jobs-api']!;
    const call = client(jobsApi, await tokenFor(db, 'metrics'));
    const before = await scrape(jobsApi);
    const created = await call('/v1/jobs', {
      body: { domains: ['example.com', 'example.org', 'quota.example.net'], job_types: ['moz'], webhook_url: `${receiver.url}/done` },
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { job_id: string }).job_id;
    // No task succeeded: the job fails, and its callback goes out.
    await expect
      .poll(async () => ((await (await call(`/v1/jobs/${id}`)).json()) as { status: string }).status, { timeout: 20_000 })
      .toBe('failed');
    await receiver.waitFor('/done', 1);

    const growth = async (name: string, labels: Record<string, string>) =>
      (await scrape(jobsApi)).sum(name, labels) - before.sum(name, labels);
    // Moz takes 10 targets a call; the fake fails a whole batch with a quota domain in it (403).
    expect(await growth('domainkit_tasks_total', { source: 'moz', outcome: 'upstream_quota' })).toBe(3);
    expect(await growth('domainkit_upstream_request_duration_seconds_count', { provider: 'moz', status: '403' })).toBe(1);
    await expect
      .poll(() => growth('domainkit_webhook_delivery_attempts_total', { service: 'jobs', attempt: '1', outcome: 'delivered' }))
      .toBe(1);
    expect(await growth('domainkit_http_requests_total', { service: 'jobs', method: 'POST', route: '/v1/jobs', status: '201' })).toBe(1);
    expect(
      await growth('domainkit_http_requests_total', { service: 'jobs', method: 'GET', route: '/v1/jobs/:id', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    const after = await scrape(jobsApi);
    expect(after.sum('domainkit_queue_depth', { source: 'moz' })).toBe(0);
    expect(after.has('domainkit_queue_depth', { source: 'ping' })).toBe(true);

    const ok = await call('/v1/jobs', { body: { domains: ['example.com', 'example.org'], job_types: ['moz'] } });
    const okId = ((await ok.json()) as { job_id: string }).job_id;
    await expect
      .poll(async () => ((await (await call(`/v1/jobs/${okId}`)).json()) as { status: string }).status, { timeout: 20_000 })
      .toBe('completed');
    expect(await growth('domainkit_tasks_total', { source: 'moz', outcome: 'ok' })).toBe(2);
    expect(await growth('domainkit_upstream_request_duration_seconds_count', { provider: 'moz', status: '200' })).toBe(1);
  });

  it('counts a message over SMTP, on the same registry as both APIs', async () => {
    const mailApi = running.addresses['mail-api']!;
    const address = await inboxVia(mailApi);
    const before = await scrape(running.addresses['jobs-api']!);
    await sendTo(running.addresses.smtp!, address);
    for (const base of [running.addresses['jobs-api']!, mailApi]) {
      const after = await scrape(base);
      expect(after.sum('domainkit_messages_stored_total') - before.sum('domainkit_messages_stored_total')).toBe(1);
      expect(after.sum('domainkit_smtp_sessions_total') - before.sum('domainkit_smtp_sessions_total')).toBe(1);
      expect(after.sum('domainkit_smtp_data_duration_seconds_count') - before.sum('domainkit_smtp_data_duration_seconds_count')).toBe(1);
    }
  });
});

describe('METRICS_PORT: the roles without a listener', () => {
  let db: TestDatabase;
  let mail: Mail;
  let wayback: Fake;
  const processes: RunningCli[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    mail = await startMail(db);
    wayback = await startWaybackFake({ pageSize: 1000 });
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await mail?.close();
    await wayback?.close();
    await db?.pool.end();
  });

  const start = async (role: string, env: Record<string, string> = {}) => {
    const running = await startCli([role], { ...LISTENERS, DATABASE_URL: db.url, ...env });
    processes.push(running);
    return running;
  };

  it('smtp serves its metrics, and health probes, on METRICS_PORT', async () => {
    const smtp = await start('smtp', { METRICS_PORT: '0' });
    const metrics = smtp.addresses.metrics!;
    expect(metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const before = await scrape(metrics);
    await sendTo(smtp.addresses.smtp!, await mail.inbox());
    const after = await scrape(metrics);
    expect(after.sum('domainkit_smtp_sessions_total') - before.sum('domainkit_smtp_sessions_total')).toBe(1);
    expect(
      after.sum('domainkit_smtp_replies_total', { code: '250' }) - before.sum('domainkit_smtp_replies_total', { code: '250' }),
    ).toBeGreaterThanOrEqual(4);
    expect(after.sum('domainkit_messages_stored_total') - before.sum('domainkit_messages_stored_total')).toBe(1);
    expect((await fetch(`${metrics}/healthz`)).status).toBe(200);
    expect((await fetch(`${metrics}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(403);
    // No jobs service in this process: no queue depth is read.
    expect(after.has('domainkit_queue_depth')).toBe(false);
  });

  it('the jobs API reports queue depth per source from PostgreSQL; the worker, on METRICS_PORT, drains it', async () => {
    const api = await start('jobs-api');
    const call = client(api.addresses['jobs-api']!, await tokenFor(db, 'depth'));
    const created = await call('/v1/jobs', { body: { domains: ['a.example', 'b.example', 'c.example'], job_types: ['moz', 'wayback'] } });
    expect(created.status).toBe(201);
    const queued = await scrape(api.addresses['jobs-api']!);
    expect(queued.sum('domainkit_queue_depth', { source: 'moz' })).toBe(3);
    expect(queued.sum('domainkit_queue_depth', { source: 'wayback' })).toBe(3);
    expect(queued.sum('domainkit_queue_depth', { source: 'seokicks' })).toBe(0);

    // Moz has no credentials here: its tasks end as source_not_configured without a request.
    const worker = await start('worker', { METRICS_PORT: '0', WAYBACK_BASE_URL: wayback.url, JOBS_WAYBACK_RATE: '0' });
    const metrics = worker.addresses.metrics!;
    await expect.poll(async () => (await scrape(metrics)).sum('domainkit_queue_depth'), { timeout: 20_000 }).toBe(0);
    const done = await scrape(metrics);
    expect(done.sum('domainkit_tasks_total', { source: 'moz', outcome: 'source_not_configured' })).toBe(3);
    expect(done.sum('domainkit_tasks_total', { source: 'wayback', outcome: 'ok' })).toBe(3);
    expect(done.sum('domainkit_upstream_request_duration_seconds_count', { provider: 'wayback', status: '200' })).toBeGreaterThanOrEqual(3);
    expect(done.has('domainkit_upstream_request_duration_seconds_count', { provider: 'moz' })).toBe(false);
    expect((await fetch(`${metrics}/readyz`)).status).toBe(200);
  });
});
