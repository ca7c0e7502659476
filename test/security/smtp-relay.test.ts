// The SMTP receiver is not an open relay: a recipient on another domain, however it is dressed up (a second @,
// a source route, the percent hack, quoted local parts, upper case, a trailing dot, an IP literal), is refused,
// or at most lands in one of our own live inboxes; and the receiver never opens a connection anywhere but to
// PostgreSQL while it handles them (nothing is ever sent on). Raw dialogue over a real socket.
import net from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useMail } from '../helpers/mail.ts';
import { SmtpClient } from '../helpers/smtp.ts';

const t = useMail();

/** Every outbound TCP connection this process opens while the tests run: host and port. */
const connections: { host: string; port: number }[] = [];
const originalConnect = net.Socket.prototype.connect;
beforeAll(() => {
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = args[0] as { port?: number | string; host?: string; path?: string } | number | unknown[];
    const options = Array.isArray(first) ? (first[0] as { port?: number; host?: string; path?: string }) : first;
    if (typeof options === 'object' && options && !('path' in options && options.path)) {
      connections.push({ host: String(options.host ?? 'localhost'), port: Number(options.port) });
    } else if (typeof options === 'number') {
      connections.push({ host: String(args[1] ?? 'localhost'), port: options });
    }
    return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;
});
afterAll(() => {
  net.Socket.prototype.connect = originalConnect;
});

const content = (to: string) => `From: a@evil.test\r\nTo: ${to}\r\nSubject: relay?\r\n\r\nrelay test\r\n`;

/** Messages stored, with the address they were stored for and the inbox that holds them. */
async function storedMessages(): Promise<{ to: string; inbox: string }[]> {
  const { rows } = await t.db.pool.query<{ to: string; inbox: string }>(
    'SELECT m.to_address AS "to", i.address AS inbox FROM messages m JOIN inboxes i ON i.id = m.inbox_id',
  );
  return rows;
}

describe('SMTP: never an open relay', () => {
  it('refuses every dressed-up foreign recipient at RCPT, or stores it only in our own live inbox', async () => {
    const ours = await t.mail.inbox();
    const [local, domain] = ours.split('@') as [string, string];
    const tricks = [
      'victim@evil.test',
      'victim@EVIL.TEST',
      `${local}@${domain}@evil.test`,
      `"${local}@${domain}"@evil.test`,
      `@evil.test:${local}@${domain}`, // source route: RFC 5321 says use the last part, our inbox, never evil.test
      `@${domain}:victim@evil.test`,
      `@${domain},@evil.test:victim@evil.test`,
      `victim%evil.test@${domain}`,
      `${local}%evil.test@${domain}`,
      `victim!evil.test@${domain}`,
      `evil.test!victim@${domain}`,
      `"victim@evil.test"@${domain}`,
      `"victim"@evil.test`,
      `victim@evil.test.`,
      `victim@${domain}.evil.test`,
      `victim@evil.test.${domain}`.replace(`.${domain}`, `.${domain}x`),
      `${local}@${domain.toUpperCase()}`,
      `${local.toUpperCase()}@${domain}`,
      `${local}@${domain}.`,
      'victim@[127.0.0.1]',
      'victim@[IPv6:::1]',
      `${local}@[127.0.0.1]`,
      'victim@localhost',
      'victim@evil.test\r\nRCPT TO:<victim2@evil.test>',
      `victim@evil.test>\r\nRCPT TO:<${ours}`,
      'postmaster',
      'victim',
    ];
    const outcomes: string[] = [];
    for (const to of tricks) {
      const s = await SmtpClient.connect(t.mail.smtpPort);
      try {
        expect((await s.command('MAIL FROM:<a@evil.test>')).code).toBe(250);
        const rcpt = await s.command(`RCPT TO:<${to}>`);
        outcomes.push(`${JSON.stringify(to)} → ${rcpt.code}`);
        // Accepted or refused, never a 4xx (a relay would queue and try later) and never 251 (forwarded).
        expect(rcpt.code === 250 || (rcpt.code >= 500 && rcpt.code < 600), `${to}: ${rcpt.text}`).toBe(true);
        if (rcpt.code === 250) expect((await s.data(content(to))).code, to).toBe(250);
      } finally {
        await s.quit();
      }
    }
    // Whatever was accepted is stored in our own inbox, for our own address, and nowhere else.
    const stored = await storedMessages();
    for (const message of stored) {
      expect(message.inbox, JSON.stringify(message)).toBe(ours);
      expect(message.to.toLowerCase(), JSON.stringify(message)).toBe(ours);
    }
    // The plain foreign recipients are refused as relaying, 550 5.7.1, as README says.
    expect(outcomes.slice(0, 2)).toEqual(['"victim@evil.test" → 550', '"victim@EVIL.TEST" → 550']);
    // Our own address in upper case is ours (case-insensitive), so the check above saw at least one delivery.
    expect(stored.length).toBeGreaterThanOrEqual(2);
  });

  it('refuses a foreign recipient next to an accepted one, and stores the message once, for our inbox only', async () => {
    const ours = await t.mail.inbox();
    const before = (await storedMessages()).length;
    const s = await SmtpClient.connect(t.mail.smtpPort);
    expect((await s.command('MAIL FROM:<a@evil.test>')).code).toBe(250);
    expect((await s.command(`RCPT TO:<${ours}>`)).code).toBe(250);
    const foreign = await s.command('RCPT TO:<victim@evil.test>');
    expect([foreign.code, foreign.text]).toEqual([550, expect.stringContaining('5.7.1')]);
    expect((await s.data(content(`${ours}, victim@evil.test`))).code).toBe(250);
    await s.quit();
    const after = await storedMessages();
    expect(after.length - before).toBe(1);
    expect(after.filter((m) => m.inbox === ours)).toHaveLength(1);
  });

  it('opened no connection but to the SMTP listener, the mail API (our clients) and PostgreSQL during all of the above', () => {
    const pg = Number(new URL(t.db.url).port || 5432);
    const api = Number(new URL(t.mail.url).port);
    const unexpected = connections.filter((c) => ![t.mail.smtpPort, api, pg].includes(c.port));
    expect(unexpected).toEqual([]);
    // The recording works: our own client's connections were seen.
    expect(connections.some((c) => c.port === t.mail.smtpPort)).toBe(true);
  });

  it('has no code that sends mail: nothing under src/ imports an SMTP client or dials port 25/465/587', async () => {
    const root = fileURLToPath(new URL('../../src/', import.meta.url));
    const files = await sourceFiles(root);
    expect(files.length).toBeGreaterThan(50);
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      if (/from ['"]nodemailer|require\(['"]nodemailer|SMTPConnection|smtp-connection|createTransport\(/.test(text)) offenders.push(file);
      if (/port:\s*(25|465|587)\b/.test(text)) offenders.push(`${file} (port)`);
    }
    expect(offenders).toEqual([]);
  });
});

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.(ts|tsx)$/.test(entry.name)) out.push(path);
  }
  return out;
}
