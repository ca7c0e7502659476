// Messages over HTTP after real SMTP delivery: list, read (marks read), raw, delete, clear, mark-all-read,
// stats, and counters that stay exact under concurrent reads and deletes.
import { describe, expect, it } from 'vitest';
import { problemOf } from '../../helpers/http.ts';
import { useMail, type Mail } from '../../helpers/mail.ts';

/** An inbox holding `count` messages sent one after another (subjects m0, m1, …). */
async function filled(count: number, attach = false): Promise<string> {
  const address = await t.mail.inbox();
  for (let i = 0; i < count; i++) {
    await t.mail.send({
      from: 'sender@example.org',
      to: address,
      subject: `m${i}`,
      text: `body ${i}`,
      ...(attach ? { attachments: [{ filename: `a${i}.txt`, content: 'x'.repeat(100) }] } : {}),
    });
  }
  return address;
}

const json = async <T = any>(path: string, init?: Parameters<Mail['call']>[1]): Promise<T> => {
  const res = await t.mail.call(path, init);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

const t = useMail();

describe('message list', () => {
  it('is newest first, 50 by default, limit 1 to 200; a bad limit is 400', async () => {
    const address = await filled(5);
    const all = await json<{ subject: string }[]>(`/api/v1/inboxes/${address}/messages`);
    expect(all.map((m) => m.subject)).toEqual(['m4', 'm3', 'm2', 'm1', 'm0']);
    expect((await json<unknown[]>(`/api/v1/inboxes/${address}/messages?limit=2`)).length).toBe(2);
    for (const limit of ['0', '201', 'abc', '1.5']) {
      const res = await t.mail.call(`/api/v1/inboxes/${address}/messages?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect((await problemOf(res)).errors).toEqual([expect.objectContaining({ location: 'query' })]);
    }
    expect(await json(`/api/v1/inboxes/${await t.mail.inbox()}/messages`)).toEqual([]);
  });
});

describe('one message', () => {
  it('reading marks it read, once; unknown, malformed and deleted ids are 404', async () => {
    const address = await filled(2);
    const [latest] = await json<{ id: string; is_read: boolean; received_at: string }[]>(`/api/v1/inboxes/${address}/messages`);
    expect(latest!.is_read).toBe(false);
    const full = await json(`/api/v1/messages/${latest!.id}`);
    expect(full.is_read).toBe(true);
    // The list (rendered by PostgreSQL) and the message (by us) show the same instant the same way.
    expect(full.received_at).toBe(latest!.received_at);
    expect(latest!.received_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await json(`/api/v1/inboxes/${address}`)).toMatchObject({ message_count: 2, unread_count: 1 });
    expect((await json(`/api/v1/messages/${latest!.id.toUpperCase()}`)).id).toBe(latest!.id);

    expect((await t.mail.call(`/api/v1/messages/${latest!.id}`, { method: 'DELETE' })).status).toBe(204);
    for (const path of [
      `/api/v1/messages/${latest!.id}`,
      `/api/v1/messages/${latest!.id}/raw`,
      '/api/v1/messages/0190b1a2-0000-7000-8000-000000000000',
      '/api/v1/messages/not-a-uuid',
      '/api/v1/messages/not-a-uuid/raw',
    ]) {
      const res = await t.mail.call(path);
      expect(res.status, path).toBe(404);
      expect((await problemOf(res)).code).toBe('not_found');
    }
    expect((await t.mail.call(`/api/v1/messages/${latest!.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await json(`/api/v1/inboxes/${address}`)).toMatchObject({ message_count: 1, unread_count: 1 });
  });
});

describe('inbox operations', () => {
  it('mark-all-read and clear answer 204; the address stays usable after clear', async () => {
    const address = await filled(3, true);
    expect(await json(`/api/v1/inboxes/${address}/stats`)).toMatchObject({
      address,
      message_count: 3,
      unread_count: 3,
      otp_count: 0,
      attachment_count: 3,
      last_received_at: expect.any(String),
    });
    const markRes = await t.mail.call(`/api/v1/inboxes/${address}/mark-all-read`, { method: 'POST' });
    expect(markRes.status).toBe(204);
    expect(await markRes.text()).toBe('');
    expect(await json(`/api/v1/inboxes/${address}`)).toMatchObject({ message_count: 3, unread_count: 0 });

    expect((await t.mail.call(`/api/v1/inboxes/${address}/clear`, { method: 'POST' })).status).toBe(204);
    expect(await json(`/api/v1/inboxes/${address}`)).toMatchObject({ message_count: 0, unread_count: 0 });
    expect(await json(`/api/v1/inboxes/${address}/stats`)).toMatchObject({
      message_count: 0,
      total_bytes: 0,
      attachment_count: 0,
      last_received_at: null,
    });

    await t.mail.send({ from: 'sender@example.org', to: address, subject: 'after clear', text: 'still here' });
    expect((await json<unknown[]>(`/api/v1/inboxes/${address}/messages`)).length).toBe(1);
  });

  it('stats add up raw sizes exactly', async () => {
    const address = await filled(3);
    const list = await json<{ raw_size: number }[]>(`/api/v1/inboxes/${address}/messages`);
    const { rows } = await t.db.pool.query<{ n: number }>(`SELECT sum(length(raw))::int AS n FROM messages WHERE to_address = $1`, [
      address,
    ]);
    expect((await json(`/api/v1/inboxes/${address}/stats`)).total_bytes).toBe(list.reduce((n, m) => n + m.raw_size, 0));
    expect(rows[0]!.n).toBe(list.reduce((n, m) => n + m.raw_size, 0));
  });

  it('counters stay exact after concurrent reads, deletes and mark-all-read', async () => {
    const address = await filled(30);
    const ids = (await json<{ id: string }[]>(`/api/v1/inboxes/${address}/messages`)).map((m) => m.id);
    const deleted = ids.filter((_, i) => i % 3 === 0); // 10
    const read = ids.filter((_, i) => i % 3 === 1); // 10, each read twice at once
    await Promise.all([
      ...deleted.map((id) => t.mail.call(`/api/v1/messages/${id}`, { method: 'DELETE' })),
      ...deleted.map((id) => t.mail.call(`/api/v1/messages/${id}`)), // racing its delete: 200 or 404
      ...read.flatMap((id) => [t.mail.call(`/api/v1/messages/${id}`), t.mail.call(`/api/v1/messages/${id}`)]),
    ]);
    const inbox = await json(`/api/v1/inboxes/${address}`);
    expect(inbox).toMatchObject({ message_count: 20, unread_count: 10 });
    const list = await json<{ is_read: boolean }[]>(`/api/v1/inboxes/${address}/messages`);
    expect(list.filter((m) => !m.is_read)).toHaveLength(10);

    await Promise.all([
      t.mail.call(`/api/v1/inboxes/${address}/mark-all-read`, { method: 'POST' }),
      ...ids
        .filter((_, i) => i % 3 === 2)
        .slice(0, 5)
        .map((id) => t.mail.call(`/api/v1/messages/${id}`, { method: 'DELETE' })),
    ]);
    expect(await json(`/api/v1/inboxes/${address}`)).toMatchObject({ message_count: 15, unread_count: 0 });
  });
});
