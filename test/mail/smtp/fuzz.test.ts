// Hostile SMTP clients against the real receiver: generated command lines, over-long lines, bare LFs, NULs,
// pipelining floods, commands out of order, huge headers, silent and dribbling clients, too many clients. In
// every case the server answers only with SMTP replies (or closes), and a normal transaction still goes
// through afterwards and is readable through the API. The limits are made short here (SMTP_IDLE_TIMEOUT_SECONDS,
// SMTP_MAX_SESSION_SECONDS, SMTP_MAX_CLIENTS), so the closing is seen in seconds; the defaults are in docs/decisions.md.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useMail } from '../../helpers/mail.ts';
import { rawConnect, type RawConnection } from '../../helpers/raw-socket.ts';
import { SmtpClient } from '../../helpers/smtp.ts';

const IDLE_MS = 1_000;
const SESSION_MS = 4_000;
const MAX_CLIENTS = 30;

const t = useMail({
  env: {
    SMTP_IDLE_TIMEOUT_SECONDS: String(IDLE_MS / 1000),
    SMTP_MAX_SESSION_SECONDS: String(SESSION_MS / 1000),
    SMTP_MAX_CLIENTS: String(MAX_CLIENTS),
    // The listener's own limit is tested here, reached from one address: the per-client bound (its own test,
    // test/mail/client-bounds.test.ts) is off.
    SMTP_MAX_SESSIONS_PER_CLIENT: '0',
  },
});

/** A raw connection that has read the greeting (smtp-server refuses a client that talks before it). */
async function greeted(): Promise<RawConnection> {
  const c = await rawConnect(t.mail.smtpPort);
  await c.until(/^220 .*\r\n/m);
  return c;
}

/** Everything the server wrote is SMTP replies: three digits, then a space or a dash. */
function expectOnlyReplies(text: string): void {
  for (const line of text.split('\r\n').filter((l) => l !== '')) expect(line).toMatch(/^\d{3}[ -]/);
}

/** A normal transaction on a fresh connection is answered 250 and its message is listed by the API. */
async function expectStillReceives(): Promise<void> {
  const to = await t.mail.inbox();
  const client = await SmtpClient.connect(t.mail.smtpPort);
  const reply = await client.send({ from: 'after@example.org', to: [to] }, Buffer.from('Subject: after\r\n\r\nstill here\r\n'));
  await client.quit();
  expect(reply.code, reply.text).toBe(250);
  const list = (await (await t.mail.call(`/api/v1/inboxes/${to}/messages`)).json()) as { subject: string }[];
  expect(list.map((m) => m.subject)).toEqual(['after']);
}

/** The single message of a fresh inbox, sent raw on one connection, read back through the API. */
async function rawOf(to: string): Promise<Buffer> {
  const [message] = (await (await t.mail.call(`/api/v1/inboxes/${to}/messages`)).json()) as { id: string }[];
  expect(message).toBeDefined();
  return Buffer.from(await (await t.mail.call(`/api/v1/messages/${message!.id}/raw`)).arrayBuffer());
}

describe('generated command lines', () => {
  it('60 sessions of up to 30 generated lines, pipelined in one write: only replies come back, the session ends', async () => {
    const target = await t.mail.inbox();
    const verb = fc.constantFrom(
      'HELO ',
      'EHLO ',
      'MAIL FROM:',
      'RCPT TO:',
      'DATA',
      'RSET',
      'NOOP',
      'VRFY ',
      'EXPN ',
      'HELP',
      'STARTTLS',
      'AUTH PLAIN ',
      'BDAT 10',
      'XCLIENT ',
      'mail from:<a@example.org>',
      `RCPT TO:<${target}>`,
      'GET / HTTP/1.1',
      '',
      '.',
    );
    const rest = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 50 }), fc.constant(''));
    const ending = fc.constantFrom('\r\n', '\n', '\0\r\n', '\r\r\n');
    const session = fc.array(fc.tuple(verb, rest, ending), { minLength: 1, maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(session, async (lines) => {
        const c = await greeted();
        // The trailing dot ends a DATA the lines may have opened; QUIT then ends the session.
        c.write(Buffer.from(`${lines.map(([v, r, e]) => v + r + e).join('')}\r\n.\r\nQUIT\r\n`, 'utf8'));
        await c.closed; // QUIT, a 421 for too many bad commands, or the idle timeout: the server ends it
        expectOnlyReplies(c.received());
      }),
      { numRuns: 60, seed: 11 },
    );
    await expectStillReceives();
  }, 120_000);
});

describe('over-long lines and odd bytes', () => {
  it('a command line over the limit is refused with 421 and the connection closed: the line is not buffered', async () => {
    const c = await greeted();
    c.write(`EHLO ${'a'.repeat(5_000)}\r\n`);
    await c.closed;
    expect(c.received()).toMatch(/\r\n421 /);
    // Without a line end at all: 1 MiB written, refused as soon as the limit is passed.
    const d = await greeted();
    d.write(`MAIL FROM:<${'x'.repeat(1024 * 1024)}`);
    await d.closed;
    expect(d.received()).toMatch(/\r\n421 /);
    await expectStillReceives();
  });

  it('a DATA line of 2 MiB without a line break, NUL bytes and bare LFs are stored byte for byte', async () => {
    const to = await t.mail.inbox();
    const client = await SmtpClient.connect(t.mail.smtpPort);
    const body = Buffer.concat([
      Buffer.from('Subject: long\nX-Nul: a\0b\r\n\r\n'),
      Buffer.alloc(2 * 1024 * 1024, 'y'),
      Buffer.from('\0\n\r\n'),
    ]);
    const reply = await client.send({ from: 'a@example.org', to: [to] }, body);
    await client.quit();
    expect(reply.code, reply.text).toBe(250);
    expect((await rawOf(to)).equals(body)).toBe(true);
  });

  it('commands ended by bare LFs get replies; a bare-LF dot does not end DATA (no smuggled second message)', async () => {
    const to = await t.mail.inbox();
    const c = await greeted();
    c.write(`EHLO bare.test\nMAIL FROM:<a@example.org>\nRCPT TO:<${to}\0>\nRCPT TO:<${to}>\nDATA\n`);
    await c.until(/\r\n354 /);
    // Only CRLF.CRLF ends the data: what follows the bare "\n.\n" is part of the one message.
    const content = `Subject: bare\n\nbody\n.\nMAIL FROM:<smuggled@example.org>\nRCPT TO:<${to}>\nDATA\nSubject: smuggled\n`;
    c.write(`${content}\r\n.\r\nQUIT\r\n`);
    await c.closed;
    expectOnlyReplies(c.received());
    expect(c.received()).toMatch(/\r\n501 .*\r\n250 Accepted\r\n354 .*\r\n250 2\.0\.0 Ok: stored 1 copy\r\n221 /);
    expect((await rawOf(to)).toString('latin1')).toBe(`${content}\r\n`);
  });
});

describe('pipelining abuse and commands out of order', () => {
  it('2,000 RCPTs in one write: every one answered, then the message is stored once', async () => {
    const to = await t.mail.inbox();
    const c = await greeted();
    const rcpts = Array.from({ length: 2_000 }, (_, i) => `RCPT TO:<${i % 2 ? to : `nobody${i}@inbox.test`}>\r\n`).join('');
    c.write(`EHLO flood.test\r\nMAIL FROM:<a@example.org>\r\n${rcpts}DATA\r\n`);
    await c.until(/\r\n354 /);
    c.write('Subject: flood\r\n\r\nx\r\n.\r\nQUIT\r\n');
    await c.closed;
    const text = c.received();
    expectOnlyReplies(text);
    expect(text).toMatch(/\r\n250 2\.0\.0 Ok: stored 1 copy\r\n/);
    expect((await (await t.mail.call(`/api/v1/inboxes/${to}/messages`)).json()) as unknown[]).toHaveLength(1);
  }, 60_000);

  it('50,000 NOOPs written without reading a reply: the server stops reading, others are served meanwhile', async () => {
    const c = await greeted();
    c.socket.pause(); // never read: the replies back up and smtp-server waits for them to drain
    c.write('NOOP\r\n'.repeat(50_000));
    await expectStillReceives();
    c.socket.destroy();
  }, 60_000);

  it('commands out of order get 503 (or 5xx), never a crash', async () => {
    const c = await greeted();
    c.write(
      'EHLO order.test\r\nDATA\r\nRCPT TO:<a@inbox.test>\r\nMAIL FROM:<a@example.org>\r\nMAIL FROM:<b@example.org>\r\nDATA\r\n.\r\nBDAT 0 LAST\r\nQUIT\r\n',
    );
    await c.closed;
    const codes = c
      .received()
      .split('\r\n')
      .filter((l) => /^\d{3} /.test(l))
      .map((l) => Number(l.slice(0, 3)));
    // greeting, EHLO, then DATA and RCPT before MAIL, MAIL, MAIL again, DATA without RCPT, ".", BDAT, QUIT
    expect(codes).toHaveLength(10);
    expect(codes.slice(0, 2)).toEqual([220, 250]);
    expect(codes[4]).toBe(250);
    for (const i of [2, 3, 5, 6, 7, 8]) expect(codes[i], `reply ${i}`).toBeGreaterThanOrEqual(500);
    expect(codes[9]).toBe(221);
    await expectStillReceives();
  });
});

describe('huge headers', () => {
  it('4 MiB of headers (20,000 folded lines) are stored and readable; 11 MiB of headers are 552, nothing stored', async () => {
    const to = await t.mail.inbox();
    const folded = Array.from({ length: 20_000 }, (_, i) => `X-H${i % 50}: ${'v'.repeat(100)}\r\n\t${'w'.repeat(100)}\r\n`).join('');
    const client = await SmtpClient.connect(t.mail.smtpPort);
    const small = Buffer.from(`Subject: big headers\r\n${folded}\r\nbody\r\n`);
    expect((await client.send({ from: 'a@example.org', to: [to] }, small)).code).toBe(250);
    const big = Buffer.from(`Subject: too big\r\n${folded.repeat(3)}\r\nbody\r\n`);
    expect(big.length).toBeGreaterThan(10 * 1024 * 1024);
    expect((await client.send({ from: 'a@example.org', to: [to] }, big)).code).toBe(552);
    await client.quit();
    expect((await rawOf(to)).equals(small)).toBe(true);
    const [message] = (await (await t.mail.call(`/api/v1/inboxes/${to}/messages`)).json()) as { id: string }[];
    for (const path of ['', '/otp', '/links']) expect((await t.mail.call(`/api/v1/messages/${message!.id}${path}`)).status).toBe(200);
  }, 60_000);
});

describe('silent, slow and too many clients', () => {
  it('a client that sends nothing gets 421 and is closed after the idle timeout', async () => {
    const c = await greeted();
    await c.closed;
    expect(c.received()).toMatch(/\r\n421 .*Timeout/);
  });

  it('a client that dribbles a byte at a time (never idle) is closed by the session limit', async () => {
    const c = await greeted();
    const line = Buffer.from(`EHLO ${'d'.repeat(1_000)}\r\n`);
    let sent = 0;
    // A byte every IDLE_MS / 5 keeps the idle timeout from ever firing; the whole line would take 200 s.
    const timer = setInterval(() => c.write(line.subarray(sent, ++sent)), IDLE_MS / 5);
    await c.closed;
    clearInterval(timer);
    expect(sent).toBeLessThan(line.length); // closed by the server, not finished by the client
    expect(c.received()).not.toMatch(/\r\n250/);
    await expectStillReceives();
  }, 30_000);

  it('past the client limit, the next connection gets 421 and is closed; once they go, clients are served again', async () => {
    const held = await Promise.all(Array.from({ length: MAX_CLIENTS }, () => greeted()));
    const extra = await rawConnect(t.mail.smtpPort);
    await extra.closed;
    expect(extra.received()).toMatch(/^421 .*Too many/);
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    await expectStillReceives();
  }, 30_000);
});
