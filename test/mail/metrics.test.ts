// The mail service's metrics move with real traffic: a message over real SMTP (sessions, replies by code,
// messages stored, the DATA histogram), a live-inbox stream (the subscriber gauge up, then down), requests by
// route pattern and status, and webhook attempts by outcome. Read as differences of /metrics before and after,
// since every app of this process shares the one registry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, JWT_SECRET, tokenOf } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { DOMAIN, startMail, type Mail } from '../helpers/mail.ts';
import { parseExposition, type Exposition } from '../helpers/prometheus.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

let db: TestDatabase;
let mail: Mail;
let receiver: Receiver;

beforeAll(async () => {
  db = await createTestDatabase();
  // /ok answers 200 (delivered), /gone 410 (dropped: a 4xx is not retried).
  receiver = await startReceiver((path) => (path === '/ok' ? 200 : 410));
  // The worker in the same process sends the deliveries; the receiver is on loopback, hence private networks.
  mail = await startMail(db, {
    worker: true,
    env: { MAIL_JWT_SECRET: JWT_SECRET, ALLOW_PRIVATE_NETWORK: 'true', MAIL_WEBHOOK_RETRY_DELAYS: '100ms' },
  });
});
afterAll(async () => {
  await mail?.close();
  await receiver?.close();
  await db?.pool.end();
});

async function scrape(): Promise<Exposition> {
  const res = await mail.call('/metrics');
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/** How much `name` (with these labels) grew since `before`, read from a fresh scrape. */
async function growth(before: Exposition, name: string, labels: Record<string, string> = {}): Promise<number> {
  return (await scrape()).sum(name, labels) - before.sum(name, labels);
}

describe('mail metrics', () => {
  it('a message over SMTP moves sessions, replies by code, messages stored and the DATA histogram', async () => {
    const address = await mail.inbox();
    const before = await scrape();
    const sent = await mail.send({ from: 'a@sender.test', to: [address, `nobody-here@${DOMAIN}`], subject: 'hi', text: 'hello' });
    expect(sent.accepted).toEqual([address]);

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) => after.sum(name, labels) - before.sum(name, labels);
    expect(moved('domainkit_smtp_sessions_total')).toBe(1);
    expect(moved('domainkit_smtp_replies_total', { code: '220' })).toBe(1);
    // EHLO, MAIL, the accepted RCPT, and the 250 after DATA.
    expect(moved('domainkit_smtp_replies_total', { code: '250' })).toBeGreaterThanOrEqual(4);
    expect(moved('domainkit_smtp_replies_total', { code: '354' })).toBe(1);
    expect(moved('domainkit_smtp_replies_total', { code: '550' })).toBe(1);
    expect(moved('domainkit_messages_stored_total')).toBe(1);
    expect(moved('domainkit_smtp_data_duration_seconds_count')).toBe(1);
    expect(moved('domainkit_smtp_data_duration_seconds_sum')).toBeGreaterThan(0);
    expect(moved('domainkit_smtp_data_duration_seconds_bucket', { le: '+Inf' })).toBe(1);
  });

  it('a live-inbox stream moves the subscriber gauge up, and back down when it closes', async () => {
    const address = await mail.inbox();
    const before = (await scrape()).sum('domainkit_sse_subscribers');
    const stream = new AbortController();
    const res = await fetch(`${mail.url}/api/v1/sse/inbox/${encodeURIComponent(address)}`, { signal: stream.signal });
    expect(res.status).toBe(200);
    await expect.poll(async () => (await scrape()).sum('domainkit_sse_subscribers')).toBe(before + 1);
    stream.abort();
    await expect.poll(async () => (await scrape()).sum('domainkit_sse_subscribers')).toBe(before);
  });

  it('counts requests by route pattern (never the raw path) and status; unrouted ones as unmatched', async () => {
    const before = await scrape();
    const address = await mail.inbox();
    expect((await mail.call(`/api/v1/inboxes/${encodeURIComponent(address)}/messages`)).status).toBe(200);
    expect((await mail.call('/api/v1/no/such/thing')).status).toBe(404);
    const route = (method: string, route: string, status: string) => ({ service: 'mail', method, route, status });
    expect(await growth(before, 'domainkit_http_requests_total', route('POST', '/api/v1/inboxes/generate', '201'))).toBe(1);
    expect(await growth(before, 'domainkit_http_requests_total', route('GET', '/api/v1/inboxes/:address/messages', '200'))).toBe(1);
    expect(await growth(before, 'domainkit_http_requests_total', route('GET', 'unmatched', '404'))).toBe(1);
    const series = (await scrape()).families.get('domainkit_http_requests_total')!.samples;
    expect(series.some((s) => s.labels.route!.includes('@'))).toBe(false);
  });

  it('counts webhook attempts by service, attempt number and outcome', async () => {
    const token = await tokenOf('acct-metrics', 3);
    const hooked = async (path: string) => {
      const res = await mail.call('/api/v1/inboxes', {
        body: { domain: DOMAIN, webhook_url: `${receiver.url}${path}` },
        headers: bearer(token),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { address: string }).address;
    };
    const [ok, gone] = [await hooked('/ok'), await hooked('/gone')];
    const before = await scrape();
    await mail.send({ from: 'a@sender.test', to: ok, subject: 'one', text: 'one' });
    await mail.send({ from: 'a@sender.test', to: gone, subject: 'two', text: 'two' });
    const attempts = (outcome: string) =>
      growth(before, 'domainkit_webhook_delivery_attempts_total', { service: 'mail', attempt: '1', outcome });
    await expect.poll(() => attempts('delivered'), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => attempts('dropped'), { timeout: 20_000 }).toBe(1);
  });
});
