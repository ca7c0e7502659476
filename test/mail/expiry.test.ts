// Past inbox_expires_at an inbox is gone at once (every route 404s, SMTP refuses it, its address can be taken
// again), and sweepers, several at a time, delete expired inboxes with their messages.
import { describe, expect, it } from 'vitest';
import { startSweeper } from '../../src/mail/index.ts';
import { createPool } from '../../src/platform/db/index.ts';
import { createLogger } from '../../src/platform/log.ts';
import { useMail } from '../helpers/mail.ts';

const log = createLogger({ level: 'silent' });

const expire = (address: string) =>
  t.db.pool.query(`UPDATE inboxes SET expires_at = now() - interval '1 second' WHERE address = $1`, [address]);

const t = useMail();

describe('an expired inbox', () => {
  it('answers 404 on every route at once, and its address can be generated again, empty', async () => {
    const address = await t.mail.inbox('shortlived');
    await t.mail.send({ from: 'a@example.org', to: address, subject: 'before', text: 'x' });
    const [message] = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string }[];
    await expire(address);

    for (const path of ['', '/messages', '/stats']) expect((await t.mail.call(`/api/v1/inboxes/${address}${path}`)).status, path).toBe(404);
    for (const path of ['/clear', '/mark-all-read'])
      expect((await t.mail.call(`/api/v1/inboxes/${address}${path}`, { method: 'POST' })).status, path).toBe(404);
    for (const path of ['', '/raw']) expect((await t.mail.call(`/api/v1/messages/${message!.id}${path}`)).status, path).toBe(404);
    expect((await t.mail.call(`/api/v1/messages/${message!.id}`, { method: 'DELETE' })).status).toBe(404);

    const again = await t.mail.call('/api/v1/inboxes/generate', { body: { local_part: 'shortlived' } });
    expect(again.status).toBe(201);
    expect(await t.mail.call(`/api/v1/inboxes/${address}`).then((r) => r.json())).toMatchObject({ message_count: 0 });
    expect((await t.mail.call(`/api/v1/messages/${message!.id}`)).status).toBe(404);
  });
});

describe('the sweeper', () => {
  it('deletes every expired inbox and message in batches, with two sweepers at once, and nothing live', async () => {
    // 1,500 expired inboxes with 2 messages each, and 20 live ones with 1: written directly, for speed.
    await t.db.pool.query(`
      WITH made AS (
        INSERT INTO inboxes (id, address, domain, expires_at)
        SELECT gen_random_uuid(), 'old' || g || '@inbox.test', 'inbox.test', now() - interval '1 minute' FROM generate_series(1, 1500) g
        UNION ALL
        SELECT gen_random_uuid(), 'live' || g || '@inbox.test', 'inbox.test', now() + interval '1 hour' FROM generate_series(1, 20) g
        RETURNING id, address)
      INSERT INTO messages (id, inbox_id, envelope_from, to_address, from_address, subject, headers, attachments, attachment_count, raw_size, raw)
      SELECT gen_random_uuid(), id, '', address, 'a@example.org', 's', '{}', '[]', 0, 3, '\\x616263'
      FROM made, generate_series(1, CASE WHEN address LIKE 'old%' THEN 2 ELSE 1 END)`);
    const other = createPool(t.db.url, log);
    const sweepers = [startSweeper(t.db.pool, log, 3600), startSweeper(other, log, 3600)];
    try {
      const results = await Promise.all(sweepers.map((s) => s.sweep()));
      const total = results.reduce((t, r) => ({ messages: t.messages + r.messages, inboxes: t.inboxes + r.inboxes }), {
        messages: 0,
        inboxes: 0,
      });
      // Between them, each row once (plus any expired inbox of the other tests).
      expect(total.messages).toBeGreaterThanOrEqual(3000);
      expect(total.inboxes).toBeGreaterThanOrEqual(1500);
    } finally {
      await Promise.all(sweepers.map((s) => s.stop()));
      await other.end();
    }
    const count = async (sql: string) => (await t.db.pool.query<{ n: number }>(sql)).rows[0]!.n;
    expect(await count(`SELECT count(*)::int AS n FROM inboxes WHERE expires_at <= now()`)).toBe(0);
    expect(
      await count(`SELECT count(*)::int AS n FROM messages m WHERE NOT EXISTS (SELECT 1 FROM inboxes i WHERE i.id = m.inbox_id)`),
    ).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM inboxes WHERE address LIKE 'live%'`)).toBe(20);
    expect(await count(`SELECT count(*)::int AS n FROM messages WHERE to_address LIKE 'live%'`)).toBe(20);
  });
});
