// A short-lived deployment: `domainkit start` with MAIL_ANON_TTL_SECONDS=2. An inbox lives exactly two seconds
// (inbox_expires_at = created_at + 2 s); once past it, every route answers 404, SMTP refuses the address, and
// the address can be generated again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { SmtpClient } from '../helpers/smtp.ts';

let db: TestDatabase;
let running: RunningCli;
beforeAll(async () => {
  db = await createTestDatabase({ empty: true });
  running = await startCli(['start'], {
    DATABASE_URL: db.url,
    HOST: '127.0.0.1',
    JOBS_PORT: '0',
    MAIL_PORT: '0',
    SMTP_PORT: '0',
    MAIL_DOMAINS: 'inbox.test',
    MAIL_ANON_TTL_SECONDS: '2',
  });
});
afterAll(async () => {
  expect(await running?.stop('SIGINT')).toBe(0);
  await db?.pool.end();
});

const mail = () => running.addresses['mail-api']!;

/** The reply to RCPT TO for `address`, as the server wrote it. */
async function rcpt(address: string): Promise<string> {
  const smtp = await SmtpClient.connect(Number(new URL(running.addresses.smtp!.replace('smtp:', 'http:')).port));
  try {
    await smtp.command('MAIL FROM:<a@example.org>');
    const reply = await smtp.command(`RCPT TO:<${address}>`);
    return reply.text;
  } finally {
    await smtp.quit();
  }
}

describe('MAIL_ANON_TTL_SECONDS=2', () => {
  it('gives inboxes two seconds of life, then 404 everywhere and 550 over SMTP, and the address is free again', async () => {
    const made = await fetch(`${mail()}/api/v1/inboxes/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"local_part":"brief"}',
    });
    expect(made.status).toBe(201);
    const inbox = (await made.json()) as { address: string; inbox_expires_at: string; created_at: string };
    expect(Date.parse(inbox.inbox_expires_at) - Date.parse(inbox.created_at)).toBe(2000);

    await expect
      .poll(async () => (await fetch(`${mail()}/api/v1/inboxes/${inbox.address}`)).status, { timeout: 10_000, interval: 200 })
      .toBe(404);
    for (const path of ['/messages', '/stats'])
      expect((await fetch(`${mail()}/api/v1/inboxes/${inbox.address}${path}`)).status, path).toBe(404);
    expect(await rcpt(inbox.address)).toMatch(/^550 5\.1\.1/);

    const again = await fetch(`${mail()}/api/v1/inboxes/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"local_part":"brief"}',
    });
    expect(again.status).toBe(201);
    expect(((await again.json()) as { address: string }).address).toBe(inbox.address);
  });
});
