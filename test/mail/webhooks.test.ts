// Mail webhooks end to end: a programmatic inbox with a webhook_url on a real local receiver, mail over real
// SMTP, the worker role delivering (pg-boss over the test database). Signature, headers, body, retries
// on a failing receiver with attempt numbers, 4xx not retried, at most 4 attempts, and the delivery log command.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, JWT_SECRET, tokenOf } from '../helpers/accounts.ts';
import { runCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { DOMAIN, startMail, type Mail } from '../helpers/mail.ts';
import { scripted, startReceiver, type Receiver } from '../helpers/receiver.ts';

const DELAYS = [200, 400, 600];
let db: TestDatabase;
let mail: Mail;
let receiver: Receiver;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver(scripted);
  // The worker in the same process sends the deliveries; the receiver is on loopback, hence private networks.
  mail = await startMail(db, {
    worker: true,
    env: {
      MAIL_JWT_SECRET: JWT_SECRET,
      ALLOW_PRIVATE_NETWORK: 'true',
      MAIL_WEBHOOK_RETRY_DELAYS: DELAYS.map((ms) => `${ms}ms`).join(','),
    },
  });
});
afterAll(async () => {
  await mail?.close();
  await receiver?.close();
  await db?.pool.end();
});

interface Created {
  id: string;
  address: string;
  label: string;
  webhook_secret: string;
}

async function hookedInbox(path: string, label = 'hooks'): Promise<Created> {
  const res = await mail.call('/api/v1/inboxes', {
    body: { domain: DOMAIN, label, webhook_url: `${receiver.url}${path}` },
    headers: bearer(await tokenOf('acct-hooks', 3)),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Created;
}

interface DeliveryRow {
  id: string;
  state: string;
  attempts: number;
  next_attempt_at: Date | null;
}

/** Waits until `count` deliveries of the inbox exist and none is pending; they, oldest first. */
async function settled(address: string, count = 1, timeoutMs = 20_000): Promise<DeliveryRow[]> {
  return vi.waitFor(
    async () => {
      const { rows } = await db.pool.query<DeliveryRow>(
        `SELECT id, state, attempts, next_attempt_at FROM deliveries WHERE service = 'mail' AND subject = $1 ORDER BY created_at`,
        [address],
      );
      if (rows.length < count || rows.some((r) => r.state === 'pending')) {
        throw new Error(`deliveries of ${address} not settled: ${JSON.stringify(rows)}`);
      }
      return rows;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

describe('mail webhooks', () => {
  it('POSTs message.received signed with the inbox secret, with the X-Mail headers and the documented body', async () => {
    const inbox = await hookedInbox('/seq/200/sign', 'signup tests ✓');
    await mail.send({
      from: 'Shop <shop@sender.test>',
      to: inbox.address,
      subject: 'Your code',
      text: 'Your verification code is 482913. https://shop.test/confirm',
    });
    const [request] = await receiver.waitFor('/seq/200/sign', 1);
    const [delivery] = await settled(inbox.address);

    const expected = Buffer.from(`sha256=${createHmac('sha256', inbox.webhook_secret).update(request!.body).digest('hex')}`);
    const header = Buffer.from(String(request!.headers['x-mail-signature']));
    expect(header.length === expected.length && timingSafeEqual(header, expected)).toBe(true);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-mail-event']).toBe('message.received');
    expect(request!.headers['x-mail-attempt']).toBe('1');
    expect(request!.headers['x-mail-delivery']).toBe(delivery!.id);

    const [message] = (await (await mail.call(`/api/v1/inboxes/${inbox.address}/messages`)).json()) as {
      id: string;
      received_at: string;
      raw_size: number;
    }[];
    const body = JSON.parse(request!.body.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['delivery_id', 'event', 'inbox', 'message', 'timestamp']);
    expect(body).toMatchObject({
      event: 'message.received',
      delivery_id: delivery!.id,
      inbox: { id: inbox.id, address: inbox.address, label: 'signup tests ✓' },
    });
    expect(Date.parse(body.timestamp as string)).not.toBeNaN();
    expect(body.message).toEqual({
      id: message!.id,
      from_address: 'shop@sender.test',
      subject: 'Your code',
      received_at: message!.received_at,
      has_otp: true,
      otp: '482913',
      link_count: 1,
      attachment_count: 0,
      raw_size: message!.raw_size,
      tag: null,
    });
    expect(delivery!.state).toBe('delivered');
  });

  it('retries 5xx with attempt numbers 1, 2, 3 and the same delivery id, until a 2xx', async () => {
    const inbox = await hookedInbox('/seq/500,503,200/retry');
    await mail.send({ from: 'x@sender.test', to: inbox.address, subject: 'retry me', text: 'hi' });
    const requests = await receiver.waitFor('/seq/500,503,200/retry', 3);
    const [delivery] = await settled(inbox.address);
    expect(requests.map((r) => r.headers['x-mail-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(requests.map((r) => r.headers['x-mail-delivery']))).toEqual(new Set([delivery!.id]));
    expect(new Set(requests.map((r) => r.body.toString('hex'))).size).toBe(1); // the same bytes every time
    expect(delivery).toMatchObject({ state: 'delivered', attempts: 3 });
  });

  it('gives up after 4 attempts on a receiver that keeps failing', async () => {
    const inbox = await hookedInbox('/seq/500/down');
    await mail.send({ from: 'x@sender.test', to: inbox.address, subject: 'nobody home', text: 'hi' });
    const [delivery] = await settled(inbox.address);
    expect(delivery).toMatchObject({ state: 'failed', attempts: 4 });
    expect(receiver.forPath('/seq/500/down').map((r) => r.headers['x-mail-attempt'])).toEqual(['1', '2', '3', '4']);
    // The delivery log shows each attempt, found by the inbox's address in any case.
    const log = await runCli(['deliveries', '--inbox', inbox.address.toUpperCase()], { DATABASE_URL: db.url });
    expect(log.code, log.stderr).toBe(0);
    const lines = log.stdout.trim().split('\n').slice(1);
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line.split(/\s+/).slice(0, 3)).toEqual([delivery!.id, 'message.received', inbox.address]);
    expect(lines.map((l) => /failed\s+(\d)\s/.exec(l)?.[1])).toEqual(['1', '2', '3', '4']);
  });

  it('does not retry a 4xx', async () => {
    const inbox = await hookedInbox('/seq/410,200/gone');
    await mail.send({ from: 'x@sender.test', to: inbox.address, subject: 'gone', text: 'hi' });
    const [delivery] = await settled(inbox.address);
    // Dropped with no next attempt scheduled (its time and queue entry would be written with the record).
    expect(delivery).toMatchObject({ state: 'dropped', attempts: 1, next_attempt_at: null });
    expect(receiver.forPath('/seq/410,200/gone')).toHaveLength(1);
  });

  it('sends one delivery per message and per hooked inbox; inboxes without a webhook get none', async () => {
    const a = await hookedInbox('/seq/200/a');
    const b = await hookedInbox('/seq/200/b');
    const plain = await mail.inbox();
    await mail.send({ from: 'x@sender.test', to: [a.address, b.address, plain], subject: 'to three', text: 'hi' });
    await mail.send({ from: 'x@sender.test', to: a.address, subject: 'to a again', text: 'hi' });
    await settled(a.address, 2);
    await settled(b.address, 1);
    expect(
      receiver
        .forPath('/seq/200/a')
        .map((r) => (JSON.parse(r.body.toString()) as { message: { subject: string } }).message.subject)
        .sort(),
    ).toEqual(['to a again', 'to three']);
    expect(receiver.forPath('/seq/200/b')).toHaveLength(1);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM deliveries WHERE subject = $1`, [plain]);
    expect(rows[0].n).toBe(0);
  });
});
