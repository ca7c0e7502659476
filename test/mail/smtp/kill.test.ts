// The SMTP receiver killed (SIGKILL) in the middle of a load: every message it answered 250 is in the database.
// The receiver runs as its own process (`domainkit smtp`); the sender is our raw-socket client, which logs the
// final reply to every DATA. After the kill, the sender's log is compared with the `messages` table.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { DOMAIN, startMail, type Mail } from '../../helpers/mail.ts';
import { dataFor, SmtpClient } from '../../helpers/smtp.ts';
import { report } from '../../faults/report.ts';

const TOTAL = 2_000;
const CONNECTIONS = 10;
/** The kill is triggered by the sender's count of 250s, not by a timer: the same point on any machine. */
const KILL_AFTER = 500;
const INBOXES = 8;

interface Sent {
  token: string;
  to: string[];
  content: Buffer;
  /** The final reply to DATA (or the refusal that ended the transaction); undefined: none came. */
  code?: number;
  /** The connection failed before the reply: the outcome is unknown. */
  error?: string;
}

let db: TestDatabase;
let mail: Mail;
let smtp: RunningCli | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  // The mail API in this process, only to make the inboxes.
  mail = await startMail(db);
  smtp = await startCli(['smtp'], { DATABASE_URL: db.url, SMTP_PORT: '0', HOST: '127.0.0.1', MAIL_DOMAINS: DOMAIN });
});
afterAll(async () => {
  if (smtp && smtp.child.exitCode === null && smtp.child.signalCode === null) await smtp.stop('SIGKILL');
  await mail?.close();
  await db?.pool.end();
});

function message(token: string, to: string[], i: number): Buffer {
  const body = Array.from({ length: i % 40 }, (_, n) => `line ${n} of ${token}: ${'x'.repeat(60)}`).join('\r\n');
  return Buffer.from(
    [
      'From: Load <load@sender.test>',
      `To: ${to.join(', ')}`,
      `Subject: load ${token}`,
      `Message-ID: <${token}@sender.test>`,
      'Date: Thu, 01 Jan 2026 00:00:00 +0000',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `body of ${token}`,
      body,
      '',
    ].join('\r\n'),
  );
}

/** Waits until no query of another client runs in this database: the killed process's last statements are over. */
async function settled(): Promise<void> {
  const running = async () =>
    (
      await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'`,
      )
    ).rows[0]!.n;
  await expect
    .poll(running, { timeout: 10_000, interval: 50, message: 'queries still running in the test database after the kill' })
    .toBe(0);
}

describe('SMTP receiver SIGKILLed under load', () => {
  it(`every message answered 250 before the kill is stored (${TOTAL} messages, ${CONNECTIONS} connections, kill after ${KILL_AFTER} 250s)`, async () => {
    const inboxes = await Promise.all(Array.from({ length: INBOXES }, () => mail.inbox()));
    const url = new URL(smtp!.addresses.smtp!); // smtp://127.0.0.1:PORT (smtp://[::1]:PORT on IPv6)
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(url.port);

    // Unique per run and per message; every fifth message goes to two inboxes (one row each).
    const run = randomBytes(4).toString('hex');
    const log: Sent[] = Array.from({ length: TOTAL }, (_, i) => {
      const token = `kill-${run}-${i}`;
      const to = i % 5 === 0 ? [inboxes[i % INBOXES]!, inboxes[(i + 1) % INBOXES]!] : [inboxes[i % INBOXES]!];
      return { token, to, content: message(token, to, i) };
    });

    let next = 0;
    let accepted = 0;
    let killed: Promise<number | null> | undefined;
    const connected = await Promise.all(Array.from({ length: CONNECTIONS }, () => SmtpClient.connect(port, host)));
    await Promise.all(
      connected.map(async (client) => {
        try {
          while (next < TOTAL) {
            const sent = log[next++]!;
            try {
              const reply = await client.send({ from: 'bounce@sender.test', to: sent.to }, sent.content);
              sent.code = reply.code;
              if (reply.code === 250 && ++accepted === KILL_AFTER) killed = smtp!.stop('SIGKILL');
            } catch (err) {
              // The receiver is gone: this connection is over, and this message's fate unknown.
              sent.error = (err as Error).message;
              return;
            }
          }
        } finally {
          client.destroy();
        }
      }),
    );

    const outcomes = {
      accepted: log.filter((s) => s.code === 250).length,
      refused: log.filter((s) => s.code !== undefined && s.code !== 250).length,
      unknown: log.filter((s) => s.error !== undefined).length,
      unsent: log.filter((s) => s.code === undefined && s.error === undefined).length,
    };
    const summary = JSON.stringify(outcomes);
    expect(killed, `the kill was never triggered: ${summary}`).toBeDefined();
    await killed;
    expect(smtp!.child.signalCode, 'the receiver died of the SIGKILL').toBe('SIGKILL');
    // The kill landed mid-load: not everything was answered 250.
    expect(outcomes.accepted, summary).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(outcomes.accepted, summary).toBeLessThan(TOTAL);

    await settled();
    const { rows } = await db.pool.query<{ messageId: string; address: string; raw: Buffer }>(
      `SELECT m.headers->>'message-id' AS "messageId", i.address, m.raw FROM messages m JOIN inboxes i ON i.id = m.inbox_id`,
    );
    const byToken = new Map(log.map((s) => [s.token, s]));
    /** token -> address -> rows */
    const stored = new Map<string, Map<string, number>>();
    const strays: string[] = [];
    const corrupt: string[] = [];
    for (const row of rows) {
      const token = /^<(.+)@sender\.test>$/.exec(row.messageId ?? '')?.[1] ?? '';
      const sent = byToken.get(token);
      if (!sent?.to.includes(row.address)) {
        strays.push(`${row.messageId} in ${row.address}`);
        continue;
      }
      if (!row.raw.equals(dataFor(sent.content).delivered)) corrupt.push(token);
      const perInbox = stored.get(token) ?? new Map<string, number>();
      perInbox.set(row.address, (perInbox.get(row.address) ?? 0) + 1);
      stored.set(token, perInbox);
    }

    const lost = log.filter((s) => s.code === 250 && !s.to.every((to) => stored.get(s.token)?.has(to)));
    const duplicates = [...stored].flatMap(([token, perInbox]) =>
      [...perInbox].filter(([, n]) => n > 1).map(([to, n]) => `${token} ×${n} in ${to}`),
    );
    const refusedButStored = log.filter((s) => s.code !== undefined && s.code !== 250 && stored.has(s.token));
    const partial = [...stored].filter(([token, perInbox]) => perInbox.size !== byToken.get(token)!.to.length).map(([token]) => token);

    report({
      scenario: 'smtp-sigkill',
      load: `${TOTAL} messages over ${CONNECTIONS} connections to ${INBOXES} inboxes (some to several); ${outcomes.accepted} answered 250 before the kill`,
      injected: `SIGKILL of the \`domainkit smtp\` process after its ${KILL_AFTER}th 250`,
      lost: lost.length,
      duplicated: duplicates.length,
      details: { strays: strays.length, corrupt: corrupt.length, refusedButStored: refusedButStored.length, partial: partial.length },
    });
    const context = `${summary}, ${rows.length} rows`;
    expect(
      lost.map((s) => `${s.token} → ${s.to.join(', ')}`),
      `answered 250 but not stored (${context})`,
    ).toEqual([]);
    expect(duplicates, `stored more than once in one inbox (${context})`).toEqual([]);
    expect(strays, `rows that were never sent there (${context})`).toEqual([]);
    expect(corrupt, `stored bytes differ from the bytes sent (${context})`).toEqual([]);
    expect(
      refusedButStored.map((s) => `${s.token} (${s.code})`),
      `refused with a reply, yet stored (${context})`,
    ).toEqual([]);
    // A message's rows are written in one statement: for all of its inboxes or for none.
    expect(partial, `stored for some of its inboxes only (${context})`).toEqual([]);
  }, 45_000);
});
