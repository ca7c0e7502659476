// What the SMTP receiver answers, asserted on reply codes over a bare dialogue: never an open relay, unknown and
// expired inboxes refused at RCPT, SIZE advertised and enforced, at most 50 recipients, one stored copy per inbox.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../helpers/db.ts';
import { startMail, useMail } from '../../helpers/mail.ts';
import { SmtpClient } from '../../helpers/smtp.ts';

const LIMIT = 64 * 1024;

const message = (to: string, body = 'hello') => `From: a@example.org\r\nTo: ${to}\r\nSubject: rules\r\n\r\n${body}\r\n`;
const stored = async (address: string) =>
  (
    await t.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE i.address = $1`,
      [address],
    )
  ).rows[0]!.n;

const t = useMail({ env: { MAIL_MAX_MESSAGE_BYTES: String(LIMIT) } });

describe('SMTP rules', () => {
  it('greets, and advertises SIZE with the configured limit (no AUTH, no STARTTLS without a certificate)', async () => {
    const s = await SmtpClient.open(t.mail.smtpPort);
    expect(s.greeting.code).toBe(220);
    const ehlo = await s.command('EHLO client.example');
    expect(ehlo.code).toBe(250);
    expect(ehlo.text).toContain(`SIZE ${LIMIT}`);
    expect(ehlo.text).not.toMatch(/AUTH|STARTTLS/);
    s.destroy();
  });

  it('refuses other domains at RCPT with 550 5.7.1 (no relay), and unknown or expired inboxes with 550 5.1.1', async () => {
    const expired = await t.mail.inbox();
    await t.db.pool.query(`UPDATE inboxes SET expires_at = now() - interval '1 second' WHERE address = $1`, [expired]);
    const s = await SmtpClient.open(t.mail.smtpPort);
    await s.command('EHLO client.example');
    expect((await s.command('MAIL FROM:<a@example.org>')).code).toBe(250);
    const relay = await s.command('RCPT TO:<victim@gmail.com>');
    expect([relay.code, relay.text]).toEqual([550, expect.stringContaining('5.7.1')]);
    const unknown = await s.command('RCPT TO:<nobody@inbox.test>');
    expect([unknown.code, unknown.text]).toEqual([550, expect.stringContaining('5.1.1')]);
    const gone = await s.command(`RCPT TO:<${expired}>`);
    expect([gone.code, gone.text]).toEqual([550, expect.stringContaining('5.1.1')]);
    // A NUL (which PostgreSQL text cannot hold) is an unknown inbox, not a temporary failure.
    const nul = await s.command('RCPT TO:<no\u0000body@inbox.test>');
    expect(nul.code === 550 || nul.code === 501, nul.text).toBe(true);
    // With no recipient accepted there is nothing to send.
    expect((await s.data(message('nobody@inbox.test'))).code).toBeGreaterThanOrEqual(500);
    s.destroy();
  });

  it('552 for a message over the limit, announced (SIZE=) or not; nothing stored', async () => {
    const address = await t.mail.inbox();
    const s = await SmtpClient.open(t.mail.smtpPort);
    await s.command('EHLO client.example');
    const announced = await s.command(`MAIL FROM:<a@example.org> SIZE=${LIMIT + 1}`);
    expect(announced.code).toBe(552);
    expect((await s.command('MAIL FROM:<a@example.org>')).code).toBe(250);
    expect((await s.command(`RCPT TO:<${address}>`)).code).toBe(250);
    const big = await s.data(message(address, 'x'.repeat(76) + '\r\n'.repeat(1) + `${'y'.repeat(76)}\r\n`.repeat(LIMIT / 70)));
    expect(big.code).toBe(552);
    // The session goes on: a message within the limit is taken.
    expect((await s.command('MAIL FROM:<a@example.org>')).code).toBe(250);
    expect((await s.command(`RCPT TO:<${address}>`)).code).toBe(250);
    expect((await s.data(message(address))).code).toBe(250);
    s.destroy();
    expect(await stored(address)).toBe(1);
  });

  it('takes at most 50 recipients (452 for the 51st); several inboxes get one copy each, a repeated one only one', async () => {
    const inboxes = await Promise.all(Array.from({ length: 51 }, () => t.mail.inbox()));
    const s = await SmtpClient.open(t.mail.smtpPort);
    await s.command('EHLO client.example');
    await s.command('MAIL FROM:<a@example.org>');
    for (const address of inboxes.slice(0, 50)) expect((await s.command(`RCPT TO:<${address}>`)).code).toBe(250);
    expect((await s.command(`RCPT TO:<${inboxes[0]!.toUpperCase()}>`)).code).toBe(250); // the same inbox again
    expect((await s.command(`RCPT TO:<${inboxes[50]}>`)).code).toBe(452);
    expect((await s.data(message(inboxes[0]!))).code).toBe(250);
    s.destroy();
    for (const address of inboxes.slice(0, 50)) expect(await stored(address), address).toBe(1);
    expect(await stored(inboxes[50]!)).toBe(0);
    const { rows } = await t.db.pool.query(`SELECT DISTINCT to_address FROM messages WHERE to_address = ANY($1)`, [inboxes]);
    expect(rows).toHaveLength(50);
  });

  it('a null reverse-path (bounces, MAIL FROM:<>) is accepted', async () => {
    const address = await t.mail.inbox();
    const s = await SmtpClient.open(t.mail.smtpPort);
    await s.command('EHLO client.example');
    expect((await s.command('MAIL FROM:<>')).code).toBe(250);
    expect((await s.command(`RCPT TO:<${address}>`)).code).toBe(250);
    expect((await s.data(message(address))).code).toBe(250);
    s.destroy();
    const { rows } = await t.db.pool.query(`SELECT envelope_from FROM messages WHERE to_address = $1`, [address]);
    expect(rows).toEqual([{ envelope_from: '' }]);
  });
});

describe('SMTP with a certificate and behind a proxy', () => {
  it('offers STARTTLS and takes mail over TLS', async () => {
    const tlsDb = await createTestDatabase();
    const certFile = fileURLToPath(new URL('../../fixtures/tls/cert.pem', import.meta.url));
    const keyFile = fileURLToPath(new URL('../../fixtures/tls/key.pem', import.meta.url));
    const cert = await readFile(certFile);
    const tlsMail = await startMail(tlsDb, { env: { SMTP_TLS_CERT: certFile, SMTP_TLS_KEY: keyFile } });
    try {
      const s = await SmtpClient.open(tlsMail.smtpPort);
      expect((await s.command('EHLO client.example')).text).toContain('STARTTLS');
      s.destroy();
      const address = await tlsMail.inbox();
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: tlsMail.smtpPort,
        secure: false,
        requireTLS: true,
        tls: { ca: cert, servername: 'inbox.test' },
      });
      const info = await transport.sendMail({ from: 'a@example.org', to: address, subject: 'over TLS', text: 'secret' });
      transport.close();
      expect(info.response).toMatch(/^250 /);
      expect((await (await tlsMail.call(`/api/v1/inboxes/${address}`)).json()) as object).toMatchObject({ message_count: 1 });
    } finally {
      await tlsMail.close();
      await tlsDb.pool.end();
    }
  });

  it('reads a PROXY protocol header when asked to', async () => {
    const proxyDb = await createTestDatabase();
    const proxied = await startMail(proxyDb, { env: { SMTP_PROXY_PROTOCOL: 'true' } });
    try {
      const address = await proxied.inbox();
      const s = await SmtpClient.open(proxied.smtpPort, '127.0.0.1', { before: 'PROXY TCP4 203.0.113.7 127.0.0.1 40000 25\r\n' });
      expect(s.greeting.code).toBe(220);
      await s.command('EHLO client.example');
      await s.command('MAIL FROM:<a@example.org>');
      expect((await s.command(`RCPT TO:<${address}>`)).code).toBe(250);
      expect((await s.data(message(address))).code).toBe(250);
      s.destroy();
    } finally {
      await proxied.close();
      await proxyDb.pool.end();
    }
  });
});
