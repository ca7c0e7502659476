// Waits under concurrency: a message committed while the wait starts is never lost (raced many times), a
// thousand waits on a hundred inboxes are each answered once with their own inbox's message, the SMTP
// receiver may be another process, an idle wait sends no query to the database, a client that leaves frees its
// wait, a lost LISTEN connection is caught up on, and a server that stops answers its waits first.
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { startMail, useMail, useSmtpProcess } from '../../helpers/mail.ts';
import { SmtpClient } from '../../helpers/smtp.ts';
import { inboxId, NIL, storeMessage, type WaitQuery, waitersOf, waitersReach, waitFor } from '../../helpers/wait.ts';

// Every query this process sends to PostgreSQL, by any client (the API's pool, the receiver's, the queue's, the
// LISTEN connection's): what an idle wait must not add to. Named statements can be held too, before they run or
// before their result is handed back, to put a commit exactly where a race would put it.
let queries = 0;
/** The text of every statement sent, newest last (what an idle window sent is named when it fails). */
const sent: string[] = [];
const ran = new Map<string, number>();
/** Held statements whose result has come back (and is held). */
const answered = new Map<string, number>();
const holdBefore = new Map<string, Promise<void>>();
const holdResult = new Map<string, Promise<void>>();
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  queries++;
  const config = args[0] as { name?: string; text?: string } | string | undefined;
  sent.push(typeof config === 'string' ? config : (config?.name ?? config?.text ?? '?'));
  if (sent.length > 200) sent.shift();
  const name = typeof config === 'object' ? config?.name : undefined;
  if (name) ran.set(name, (ran.get(name) ?? 0) + 1);
  const before = name === undefined ? undefined : holdBefore.get(name);
  const after = name === undefined ? undefined : holdResult.get(name);
  if (!before && !after) return query.apply(this, args);
  // Held: run through the promise form, then answer the pool's callback.
  const callback = args.at(-1) as (err: unknown, result?: unknown) => void;
  void (async () => {
    await before;
    const result = await (query.call(this, args[0], args[1]) as Promise<unknown>);
    answered.set(name!, (answered.get(name!) ?? 0) + 1);
    await after;
    return result;
  })().then(
    (result) => callback(null, result),
    (err: unknown) => callback(err),
  );
  return undefined;
} as typeof pg.Client.prototype.query;

/** A promise to hold a statement with, and its release. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('waits under concurrency', () => {
  // 1,000 waits from one address: the per-client bound (test/mail/client-bounds.test.ts) is off. The process's
  // housekeeping (the client leases' heartbeat, the expiry sweeper) queries on its own clock; it is set far
  // apart so that an idle window measures the waits alone.
  const t = useMail({
    env: {
      MAIL_WAIT_MAX_SECONDS: '60',
      MAIL_WAIT_MAX_PER_CLIENT: '0',
      CLIENT_LEASE_SECONDS: '3600',
      MAIL_SWEEP_SECONDS: '86400',
    },
  });

  it('never loses a message committed while its wait starts (raced 150 times)', async () => {
    const address = await t.mail.inbox();
    const inbox = { id: await inboxId(t.mail.url, address), address };
    let cursor = NIL;
    for (let round = 0; round < 150; round++) {
      const pending = waitFor(t.mail.url, address, { after: cursor, timeout: 10 });
      // The commit lands anywhere from before the wait's first look to well after it is registered.
      if (round % 3 === 1) await new Promise((r) => setImmediate(r));
      if (round % 3 === 2) await new Promise((r) => setTimeout(r, round % 7));
      const id = await storeMessage(t.db.pool, inbox, { subject: `race ${round}` });
      const { body } = await pending;
      expect(body.status, `round ${round}`).toBe('message');
      expect(body.message!.id).toBe(id);
      cursor = body.cursor!;
    }
  }, 120_000);

  it('without `after`, takes what its first look can see as already there, though heard of after the wait began', async () => {
    const address = await t.mail.inbox();
    const inbox = { id: await inboxId(t.mail.url, address), address };
    // The look for the inbox's newest message is held while a message is committed: the wait, registered before,
    // hears of it, but the look then sees it, so it was in the inbox when the wait started (as a message
    // committed just before the call whose notification comes late). The next one is the answer.
    const held = gate();
    holdBefore.set('mail.messages.newestMessageIds', held.promise);
    const looked = answered.get('mail.messages.newestMessageIds') ?? 0;
    const notified = ran.get('mail.messages.waitCandidates') ?? 0;
    const pending = waitFor(t.mail.url, address, { timeout: 10 });
    await waitersReach(t.mail.url, 1);
    await storeMessage(t.db.pool, inbox, { subject: 'there when the wait looked' });
    await expect.poll(() => ran.get('mail.messages.waitCandidates') ?? 0).toBe(notified + 1);
    held.open();
    holdBefore.delete('mail.messages.newestMessageIds');
    await expect.poll(() => answered.get('mail.messages.newestMessageIds') ?? 0).toBe(looked + 1);
    const id = await storeMessage(t.db.pool, inbox, { subject: 'after the look' });
    expect((await pending).body.message?.id).toBe(id);
  });

  it('without `after`, answers with a message committed after its first look even when its id is older', async () => {
    const address = await t.mail.inbox();
    const inbox = { id: await inboxId(t.mail.url, address), address };
    // A receiver made the id first and commits last: the wait's look sees a newer message, yet the older id was
    // not in the inbox when the wait looked, so it is the answer.
    const early = uuidv7();
    await storeMessage(t.db.pool, inbox, { subject: 'newest when the wait looks' });
    // Held for nothing: only so that its answer is counted.
    holdResult.set('mail.messages.newestMessageIds', Promise.resolve());
    const looked = answered.get('mail.messages.newestMessageIds') ?? 0;
    const pending = waitFor(t.mail.url, address, { timeout: 10 });
    await expect.poll(() => answered.get('mail.messages.newestMessageIds') ?? 0).toBe(looked + 1);
    holdResult.delete('mail.messages.newestMessageIds');
    await storeMessage(t.db.pool, inbox, { id: early, subject: 'older id, committed later' });
    expect((await pending).body.message?.id).toBe(early);
  });

  it('answers with a message committed after its first look read the inbox and before that look was done', async () => {
    const address = await t.mail.inbox();
    const inbox = { id: await inboxId(t.mail.url, address), address };
    // With `after`: the look at the messages after the cursor has read (finding nothing), and its result is held
    // while a message is committed and its notification handled.
    const held = gate();
    holdResult.set('mail.messages.waitCandidatesAfter', held.promise);
    const looked = answered.get('mail.messages.waitCandidatesAfter') ?? 0;
    const pending = waitFor(t.mail.url, address, { after: NIL, timeout: 10 });
    await expect.poll(() => answered.get('mail.messages.waitCandidatesAfter') ?? 0).toBe(looked + 1);
    const notified = ran.get('mail.messages.waitCandidates') ?? 0;
    const id = await storeMessage(t.db.pool, inbox, { subject: 'while looking' });
    await expect.poll(() => ran.get('mail.messages.waitCandidates') ?? 0).toBe(notified + 1);
    held.open();
    holdResult.delete('mail.messages.waitCandidatesAfter');
    expect((await pending).body.message?.id).toBe(id);
  });

  it('answers 1,000 concurrent waits on 100 inboxes, each once, with its own inbox message', async () => {
    const addresses = await Promise.all(Array.from({ length: 100 }, () => t.mail.inbox()));
    // Ten waits per inbox, with and without cursor and filters, so that they share their lookups.
    const waits = Array.from({ length: 1000 }, (_, i) => {
      const address = addresses[i % 100]!;
      const query: WaitQuery = [{}, { after: NIL }, { subject: 'for' }, { from: 'SENDER.test', after: NIL }][i % 4]!;
      return { address, answer: waitFor(t.mail.url, address, { timeout: 60, ...query }) };
    });
    await waitersReach(t.mail.url, 1000, 'every wait to be registered');
    for (let from = 0; from < 100; from += 10) {
      await Promise.all(
        addresses.slice(from, from + 10).map((to) => t.mail.send({ from: 'w@sender.test', to, subject: `for ${to}`, text: 'hello' })),
      );
    }
    const answers = await Promise.all(waits.map(async (w) => ({ address: w.address, ...(await w.answer) })));
    const byAddress = new Map<string, Set<string>>();
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.status).toBe('message');
      expect(a.body.message!.to_address).toBe(a.address);
      expect(a.body.message!.subject).toBe(`for ${a.address}`);
      byAddress.set(a.address, (byAddress.get(a.address) ?? new Set()).add(a.body.message!.id));
    }
    // One message per inbox: every wait of an inbox got that one, and no two inboxes share one.
    expect([...byAddress.values()].map((ids) => ids.size)).toEqual(Array(100).fill(1));
    expect(new Set([...byAddress.values()].flatMap((ids) => [...ids])).size).toBe(100);
    await waitersReach(t.mail.url, 0, 'every wait to be gone');
  }, 120_000);

  it('sends no query to the database while its waits are idle', async () => {
    const addresses = await Promise.all(Array.from({ length: 20 }, () => t.mail.inbox()));
    const pending = addresses.flatMap((address) => [
      waitFor(t.mail.url, address, { timeout: 60 }),
      waitFor(t.mail.url, address, { after: NIL, timeout: 60, subject: 'wake' }),
    ]);
    await waitersReach(t.mail.url, 40);
    // Their first looks done: the count stands still (two reads 300 ms apart agree).
    await expect
      .poll(async () => {
        const before = queries;
        await new Promise((r) => setTimeout(r, 300));
        return queries - before;
      })
      .toBe(0);
    const idleFrom = queries;
    await new Promise((r) => setTimeout(r, 3000));
    const idle = sent.slice(sent.length - (queries - idleFrom));
    const waiting = await waitersOf(t.mail.url);
    // Woken whatever the figures, so that a failure here leaves no wait behind for the tests after it.
    for (const to of addresses) await t.mail.send({ from: 'w@sender.test', to, subject: 'wake up', text: 'x' });
    const answers = await Promise.all(pending);
    expect(idle, 'statements sent while idle').toEqual([]);
    // They were still waiting, and were answered.
    expect(waiting).toBe(40);
    for (const answer of answers) expect(answer.body.status).toBe('message');
  }, 60_000);

  it('frees a wait as soon as its client goes away', async () => {
    await waitersReach(t.mail.url, 0, "earlier tests' waits to be gone");
    const address = await t.mail.inbox();
    const controller = new AbortController();
    const pending = waitFor(t.mail.url, address, { timeout: 60 }, { signal: controller.signal }).catch((err: Error) => err);
    await waitersReach(t.mail.url, 1, 'the wait to be registered');
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await waitersReach(t.mail.url, 0, 'the wait to be freed');
  });

  it('catches up on what was stored while its LISTEN connection was down', async () => {
    const address = await t.mail.inbox();
    const inbox = { id: await inboxId(t.mail.url, address), address };
    const pending = waitFor(t.mail.url, address, { after: NIL, timeout: 10, subject: 'while away' });
    await waitersReach(t.mail.url, 1);
    // The connection is cut and the message committed before it is back (it reconnects after 250 ms).
    await t.db.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'domainkit-listen'",
    );
    const id = await storeMessage(t.db.pool, inbox, { subject: 'stored while away' });
    expect((await pending).body.message?.id).toBe(id);
  });

  it('answers its waits with a timeout and their cursor when the server stops', async () => {
    const api = await startMail(t.db);
    const address = await api.inbox();
    const pending = waitFor(api.url, address, { timeout: 60 });
    await waitersReach(api.url, 1);
    await api.close();
    expect(await pending).toEqual({ status: 200, body: { status: 'timeout', cursor: NIL } });
  });
});

describe('waits with the SMTP receiver in another process', () => {
  const t = useMail();
  const smtpPort = useSmtpProcess(t);

  it('hears of mail stored by `domainkit smtp` (another process), through PostgreSQL', async () => {
    const addresses = [await t.mail.inbox(), await t.mail.inbox()];
    const pending = addresses.map((address) => waitFor(t.mail.url, address, { timeout: 30, has_otp: true }));
    await waitersReach(t.mail.url, 2);
    const client = await SmtpClient.connect(smtpPort());
    for (const to of addresses) {
      for (const [subject, body] of [
        ['no code', 'nothing here'],
        ['code', 'Your login code is 739201.'],
      ]) {
        const reply = await client.send(
          { from: 'far@sender.test', to: [to] },
          Buffer.from(`From: far@sender.test\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\n${body}\r\n`),
        );
        expect(reply.code).toBe(250);
      }
    }
    await client.quit();
    for (const [i, answer] of (await Promise.all(pending)).entries()) {
      expect(answer.body).toMatchObject({ status: 'message', otp: '739201', message: { subject: 'code', to_address: addresses[i] } });
    }
  });
});
