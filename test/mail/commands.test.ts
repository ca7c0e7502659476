// The mail side of the `domainkit` command: `mail domains add`, MAIL_DOMAINS at start, and the smtp role on
// the wildcard address answering over IPv4 and IPv6.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { SmtpClient } from '../helpers/smtp.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.pool.end();
});

const domains = async () =>
  (await db.pool.query(`SELECT name, is_public AS "isPublic", tier_required AS "tier" FROM mail_domains ORDER BY ordinal`)).rows;

describe('domainkit mail domains add', () => {
  it('adds a domain (normalised), and changes one already there', async () => {
    const added = await runCli(['mail', 'domains', 'add', 'Mail.Example.ORG.', '--private', '--tier', '3'], { DATABASE_URL: db.url });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout.trim()).toBe('domain mail.example.org: private, tier 3');
    const changed = await runCli(['mail', 'domains', 'add', 'mail.example.org'], { DATABASE_URL: db.url });
    expect(changed.stdout.trim()).toBe('domain mail.example.org: public, tier 0');
    expect(await domains()).toContainEqual({ name: 'mail.example.org', isPublic: true, tier: 0 });
  });

  it.each([
    [['not a domain'], 'contains a character not allowed'],
    [['localhost'], 'at least two labels'],
    [['ok.example', '--tier', 'high'], '--tier takes an integer'],
  ])('refuses %j with a message and exit code 1', async (args, words) => {
    const res = await runCli(['mail', 'domains', 'add', ...args], { DATABASE_URL: db.url });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(words);
  });
});

describe('the smtp role', () => {
  it('creates MAIL_DOMAINS and, on the wildcard address, answers on IPv4 and IPv6', async () => {
    const smtp = await startCli(['smtp'], {
      DATABASE_URL: db.url,
      SMTP_PORT: '0',
      HOST: '0.0.0.0',
      MAIL_DOMAINS: 'first.test, Second.Test',
    });
    try {
      const port = Number(/:(\d+)$/.exec(smtp.addresses.smtp!)![1]);
      for (const host of ['127.0.0.1', '::1']) {
        const s = await SmtpClient.open(port, host);
        expect(s.greeting.code, host).toBe(220);
        s.destroy();
      }
      expect((await domains()).map((d) => d.name)).toEqual(expect.arrayContaining(['first.test', 'second.test']));
    } finally {
      await smtp.stop();
    }
  });
});
