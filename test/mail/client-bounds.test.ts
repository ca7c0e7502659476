// Per-client bounds of the mail service (MAIL_SSE_MAX_PER_CLIENT, MAIL_WAIT_MAX_PER_CLIENT,
// SMTP_MAX_SESSIONS_PER_CLIENT), with small bounds: one client past its bound is refused (429 problem with
// Retry-After; SMTP 421 4.7.0) while another client is served as before, and a place given back can be taken
// again. Clients are distinct loopback addresses, or clients named by a trusted proxy's X-Forwarded-For.
import { request } from 'node:http';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldCount } from '../../src/platform/leases/index.ts';
import { getFrom, openFrom, rawConnectFrom, type OpenStream } from '../helpers/from-address.ts';
import { startMail, useMail, type Mail } from '../helpers/mail.ts';
import { parseExposition } from '../helpers/prometheus.ts';

const PROXY = '127.0.0.10';
const t = useMail({
  env: {
    MAIL_SSE_MAX_PER_CLIENT: '3',
    MAIL_WAIT_MAX_PER_CLIENT: '2',
    SMTP_MAX_SESSIONS_PER_CLIENT: '2',
    TRUSTED_PROXIES: PROXY,
  },
});

async function refusals(kind: string): Promise<number> {
  return parseExposition(await (await t.mail.call('/metrics')).text()).sum('domainkit_client_bound_refusals_total', { kind });
}

const sse = (address: string) => `${t.mail.url}/api/v1/sse/inbox/${encodeURIComponent(address)}`;

function expectRefused(answer: { status: number; headers: Record<string, unknown> }, body: string): void {
  expect(answer.status).toBe(429);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  expect(JSON.parse(body)).toMatchObject({ status: 429, code: 'too_many_connections' });
}

async function sendFrom(localAddress: string, to: string, subject: string): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.mail.smtpPort, secure: false, ignoreTLS: true, localAddress });
  try {
    const info = await transport.sendMail({ from: 'shop@example.org', to, subject, text: `Your code is 482913 (${subject})` });
    return info.response;
  } finally {
    transport.close();
  }
}

describe('live streams per client (MAIL_SSE_MAX_PER_CLIENT)', () => {
  it('refuses a client past its bound with 429 while another client connects and receives events', async () => {
    const address = await t.mail.inbox();
    const held: OpenStream[] = [];
    const refusedBefore = await refusals('mail.sse');
    for (let i = 0; i < 3; i++) {
      const stream = await openFrom('127.0.0.2', sse(address));
      expect(stream.status).toBe(200);
      await stream.until('event: connected');
      held.push(stream);
    }
    const refused = await openFrom('127.0.0.2', sse(address));
    await refused.until('}');
    expectRefused(refused, refused.text());
    expect(await refusals('mail.sse')).toBe(refusedBefore + 1);
    // A refusal holds nothing: the client still holds its three.
    expect(await heldCount(t.db.pool, 'mail.sse', '127.0.0.2')).toBe(3);

    const other = await openFrom('127.0.0.3', sse(address));
    expect(other.status).toBe(200);
    await other.until('event: connected');
    expect(await sendFrom('127.0.0.3', address, 'to the other client')).toMatch(/^250 /);
    await other.until('to the other client');
    await held[0]!.until('to the other client'); // the bounded client's open streams are served too

    // A stream that ends gives its place back.
    held[0]!.close();
    await expect.poll(() => heldCount(t.db.pool, 'mail.sse', '127.0.0.2')).toBe(2);
    const again = await openFrom('127.0.0.2', sse(address));
    expect(again.status).toBe(200);
    for (const s of [...held, other, again]) s.close();
    await expect.poll(() => heldCount(t.db.pool, 'mail.sse', '127.0.0.2')).toBe(0);
  });

  it('counts the client a trusted proxy names, and a spoofed X-Forwarded-For from anyone else not at all', async () => {
    const address = await t.mail.inbox();
    const viaProxy = (client: string) => openFrom(PROXY, sse(address), { 'x-forwarded-for': client });
    const held: OpenStream[] = [];
    for (let i = 0; i < 3; i++) held.push(await viaProxy('198.51.100.1'));
    expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await viaProxy('198.51.100.1');
    await refused.until('}');
    expectRefused(refused, refused.text());
    // The proxy's other clients are other clients.
    const second = await viaProxy('198.51.100.2');
    expect(second.status).toBe(200);
    held.push(second);

    // An untrusted client naming a new address each time is still one client: its socket's.
    for (let i = 0; i < 3; i++) {
      const s = await openFrom('127.0.0.5', sse(address), { 'x-forwarded-for': `203.0.113.${i}` });
      expect(s.status).toBe(200);
      held.push(s);
    }
    const spoofed = await openFrom('127.0.0.5', sse(address), { 'x-forwarded-for': '203.0.113.99' });
    await spoofed.until('}');
    expectRefused(spoofed, spoofed.text());
    for (const s of held) s.close();
  });
});

describe('waits per client (MAIL_WAIT_MAX_PER_CLIENT)', () => {
  it('refuses a third concurrent wait of one client while another client is answered', async () => {
    const address = await t.mail.inbox();
    const wait = `${t.mail.url}/api/v1/inboxes/${encodeURIComponent(address)}/wait?timeout=60`;
    const pending = [openFrom('127.0.0.2', wait), openFrom('127.0.0.2', wait)];
    await expect.poll(() => heldCount(t.db.pool, 'mail.wait', '127.0.0.2')).toBe(2);
    const refused = await getFrom('127.0.0.2', wait);
    expectRefused(refused, refused.body);

    const other = getFrom('127.0.0.3', wait);
    await expect.poll(() => heldCount(t.db.pool, 'mail.wait', '127.0.0.3')).toBe(1);
    expect(await sendFrom('127.0.0.3', address, 'for the waits')).toMatch(/^250 /);
    const answered = await other;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ status: 'message', otp: '482913' });
    // The two held waits are answered by the same mail, and their places given back.
    for (const p of pending) {
      const s = await p;
      expect(s.status).toBe(200);
      await s.until('"status":"message"');
    }
    await expect.poll(() => heldCount(t.db.pool, 'mail.wait', '127.0.0.2')).toBe(0);
    await expect.poll(() => heldCount(t.db.pool, 'mail.wait', '127.0.0.3')).toBe(0);
  });

  it('gives the place of a wait whose client left back', async () => {
    const address = await t.mail.inbox();
    const wait = `${t.mail.url}/api/v1/inboxes/${encodeURIComponent(address)}/wait?timeout=60`;
    const requests = [0, 1].map(() => request(wait, { localAddress: '127.0.0.6', agent: false }).on('error', () => undefined));
    for (const r of requests) r.end();
    await expect.poll(() => heldCount(t.db.pool, 'mail.wait', '127.0.0.6')).toBe(2);
    expect((await getFrom('127.0.0.6', wait)).status).toBe(429);
    // The client goes away without an answer: its waits end, and their places go back.
    for (const r of requests) r.destroy();
    await expect.poll(() => heldCount(t.db.pool, 'mail.wait', '127.0.0.6')).toBe(0);
    const left = await getFrom('127.0.0.6', wait.replace('timeout=60', 'timeout=1'));
    expect(JSON.parse(left.body)).toMatchObject({ status: 'timeout' });
  });
});

describe('SMTP sessions per client (SMTP_MAX_SESSIONS_PER_CLIENT)', () => {
  it('answers a client past its bound 421 4.7.0 and closes, while another client delivers', async () => {
    const address = await t.mail.inbox();
    const held = [await rawConnectFrom('127.0.0.2', t.mail.smtpPort), await rawConnectFrom('127.0.0.2', t.mail.smtpPort)];
    for (const c of held) await c.until(/^220 /m);
    const refused = await rawConnectFrom('127.0.0.2', t.mail.smtpPort);
    await refused.closed;
    expect(refused.received()).toMatch(/^421 4\.7\.0 /);
    expect(refused.received()).not.toMatch(/^220 /m);
    expect(await refusals('mail.smtp')).toBeGreaterThanOrEqual(1);

    expect(await sendFrom('127.0.0.3', address, 'from another sender')).toMatch(/^250 /);
    const res = await t.mail.call(`/api/v1/inboxes/${encodeURIComponent(address)}/messages`);
    expect(((await res.json()) as Array<{ subject: string }>).map((m) => m.subject)).toEqual(['from another sender']);

    // The held sessions still work, and one that ends gives its place back.
    held[0]!.write('EHLO client.example\r\n');
    await held[0]!.until(/^250 /m);
    held[0]!.write('QUIT\r\n');
    await held[0]!.closed;
    await expect.poll(() => heldCount(t.db.pool, 'mail.smtp', '127.0.0.2')).toBe(1);
    const again = await rawConnectFrom('127.0.0.2', t.mail.smtpPort);
    await again.until(/^220 /m);
    for (const c of [held[1]!, again]) c.socket.destroy();
    await expect.poll(() => heldCount(t.db.pool, 'mail.smtp', '127.0.0.2')).toBe(0);
  });
});

describe('SMTP sessions per client behind a load balancer (SMTP_PROXY_PROTOCOL)', () => {
  let proxied: Mail;
  beforeAll(async () => {
    proxied = await startMail(t.db, { env: { SMTP_PROXY_PROTOCOL: 'true', SMTP_MAX_SESSIONS_PER_CLIENT: '1' } });
  });
  afterAll(async () => {
    await proxied?.close();
  });

  /** A connection from the balancer (one peer for all) announcing `client` in its PROXY v1 header. */
  async function via(client: string) {
    const c = await rawConnectFrom('127.0.0.20', proxied.smtpPort);
    c.write(`PROXY TCP4 ${client} 127.0.0.1 40000 25\r\n`);
    return c;
  }

  it('counts the address of the PROXY header, not the balancer', async () => {
    const first = await via('198.51.100.1');
    await first.until(/^220 /m);
    const other = await via('198.51.100.2');
    await other.until(/^220 /m);
    const refused = await via('198.51.100.1');
    await refused.closed;
    expect(refused.received()).toMatch(/^421 4\.7\.0 Too many connections from 198\.51\.100\.1/);
    expect(await heldCount(t.db.pool, 'mail.smtp', '198.51.100.1')).toBe(1);
    expect(await heldCount(t.db.pool, 'mail.smtp', '127.0.0.20')).toBe(0);
    for (const c of [first, other]) c.socket.destroy();
  });
});
