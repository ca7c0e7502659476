// GET /api/v1/inboxes/{address}/wait with mail sent over real SMTP: the answer (message, code, link), the cursor
// (after an id, the nil UUID, none), each filter (on what an older extractor found too), the timeout answer, a
// private inbox, the query's validation, and that a wait does not mark its message read.
import { describe, expect, it } from 'vitest';
import { bearer, JWT_SECRET, tokenOf } from '../../helpers/accounts.ts';
import { problemOf } from '../../helpers/http.ts';
import { DOMAIN, type Mail, useMail } from '../../helpers/mail.ts';
import { inboxId, NIL, storeMessage, type WaitQuery, waitersReach, waitFor } from '../../helpers/wait.ts';

const wait = (mail: Mail, address: string, query: WaitQuery = {}) => waitFor(mail.url, address, query);

/** The inbox's messages, oldest first, as the list shows them. */
async function listed(mail: Mail, address: string): Promise<{ id: string; subject: string; is_read: boolean }[]> {
  const res = await mail.call(`/api/v1/inboxes/${address}/messages`);
  return ((await res.json()) as { id: string; subject: string; is_read: boolean }[]).reverse();
}

describe('waiting for a message', () => {
  const t = useMail({ env: { MAIL_WAIT_MAX_SECONDS: '20', HTTP_REQUEST_TIMEOUT_SECONDS: '1', MAIL_JWT_SECRET: JWT_SECRET } });

  it('answers with the message that arrives, its code and its link, without marking it read', async () => {
    const address = await t.mail.inbox();
    const pending = wait(t.mail, address, { timeout: 20 });
    await waitersReach(t.mail.url, 1, 'the wait to be registered');
    await t.mail.send({
      from: 'Service <no-reply@service.test>',
      to: address,
      subject: 'Confirm your address',
      text: 'Your verification code is 482913.',
      html: '<p>Your verification code is 482913.</p><p><a href="https://service.test/help">Help</a> <a href="https://service.test/verify?t=abc">Verify your email</a></p>',
    });
    const { status, body } = await pending;
    expect(status).toBe(200);
    expect(body.status).toBe('message');
    expect(body.cursor).toBe(body.message!.id);
    expect(body.otp).toBe('482913');
    expect(body.link).toMatchObject({ url: 'https://service.test/verify?t=abc', kind: 'verify' });
    expect(body.message!.is_read).toBe(false);
    expect((await listed(t.mail, address)).map((m) => m.is_read)).toEqual([false]);
    // The message as GET /api/v1/messages/{id} shows it (which marks it read).
    const read = (await (await t.mail.call(`/api/v1/messages/${body.cursor}`)).json()) as Record<string, unknown>;
    expect({ ...body.message, is_read: true }).toEqual(read);
    expect(body.message!.otp_detected).toBe('482913');
    await waitersReach(t.mail.url, 0, 'the wait to be gone');
  });

  it('without `after`, answers only with mail newer than the newest the inbox had; its timeout cursor is that message', async () => {
    const address = await t.mail.inbox();
    const empty = await wait(t.mail, address, { timeout: 0 });
    expect(empty.body).toEqual({ status: 'timeout', cursor: NIL });
    for (const subject of ['old 1', 'old 2']) await t.mail.send({ from: 'a@sender.test', to: address, subject, text: 'x' });
    const [, newest] = await listed(t.mail, address);
    const none = await wait(t.mail, address, { timeout: 0 });
    expect(none).toEqual({ status: 200, body: { status: 'timeout', cursor: newest!.id } });

    const pending = wait(t.mail, address, { timeout: 20 });
    await waitersReach(t.mail.url, 1);
    await t.mail.send({ from: 'a@sender.test', to: address, subject: 'new', text: 'x' });
    expect((await pending).body.message?.subject).toBe('new');
  });

  it('with `after`, answers with the oldest message after that id; the nil UUID means any message of the inbox', async () => {
    const address = await t.mail.inbox();
    for (const subject of ['m1', 'm2', 'm3']) await t.mail.send({ from: 'a@sender.test', to: address, subject, text: 'x' });
    const [m1, m2, m3] = await listed(t.mail, address);
    expect((await wait(t.mail, address, { after: NIL, timeout: 0 })).body.message?.id).toBe(m1!.id);
    expect((await wait(t.mail, address, { after: m1!.id, timeout: 0 })).body.message?.id).toBe(m2!.id);
    // Upper-case ids are the same ids.
    expect((await wait(t.mail, address, { after: m2!.id.toUpperCase(), timeout: 0 })).body.message?.id).toBe(m3!.id);
    expect((await wait(t.mail, address, { after: m3!.id, timeout: 0 })).body).toEqual({ status: 'timeout', cursor: m3!.id });

    // Following the cursor from answer to answer reads every message once, in order, then waits for the next.
    const seen: string[] = [];
    let cursor = NIL;
    for (;;) {
      const { body } = await wait(t.mail, address, { after: cursor, timeout: 0 });
      cursor = body.cursor!;
      if (body.status === 'timeout') break;
      seen.push(body.message!.subject);
    }
    expect(seen).toEqual(['m1', 'm2', 'm3']);
    const next = wait(t.mail, address, { after: cursor, timeout: 20 });
    await waitersReach(t.mail.url, 1);
    await t.mail.send({ from: 'a@sender.test', to: address, subject: 'm4', text: 'x' });
    expect((await next).body.message?.subject).toBe('m4');
  });

  it('filters by sender, subject, tag, code and link kind; the timeout cursor is the newest message looked at', async () => {
    const address = await t.mail.inbox();
    const [local, domain] = address.split('@') as [string, string];
    const mails = [
      { from: 'Alice <Alice@Example.test>', to: address, subject: 'Welcome aboard', text: 'Hello there.' },
      { from: 'bob@sender.test', to: address, subject: 'Your CODE', text: 'Your verification code is 482913.' },
      {
        from: 'carol@sender.test',
        to: address,
        subject: 'Password',
        html: '<p>Someone asked to reset your password.</p><a href="https://service.test/reset?t=1">Reset your password</a>',
      },
      { from: 'dave@sender.test', to: `${local}+signup@${domain}`, subject: 'Tagged', text: 'tagged' },
      {
        from: 'eve@sender.test',
        to: address,
        subject: 'Confirm',
        html: '<p>Please confirm your email address.</p><a href="https://service.test/verify?t=2">Verify your email</a>',
      },
    ];
    for (const mail of mails) await t.mail.send(mail);
    const ids = (await listed(t.mail, address)).map((m) => m.id);
    const first = async (query: WaitQuery) => (await wait(t.mail, address, { after: NIL, timeout: 0, ...query })).body;

    expect((await first({ from: 'example.TEST' })).message?.id).toBe(ids[0]);
    expect((await first({ subject: 'code' })).message?.id).toBe(ids[1]);
    expect((await first({ has_otp: true })).message?.id).toBe(ids[1]);
    expect((await first({ has_otp: false })).message?.id).toBe(ids[0]);
    expect((await first({ tag: 'signup' })).message?.id).toBe(ids[3]);
    expect((await first({ tag: 'signup' })).message?.tag).toBe('signup');
    const reset = await first({ link_kind: 'reset' });
    expect(reset.message?.id).toBe(ids[2]);
    expect(reset.link).toMatchObject({ url: 'https://service.test/reset?t=1', kind: 'reset' });
    expect((await first({ link_kind: 'verify' })).message?.id).toBe(ids[4]);
    // Every filter given must match: none does here.
    expect((await first({ from: 'alice', subject: 'code' })).status).toBe('timeout');
    // None matched: the cursor is the newest message looked at, so calling again misses nothing.
    expect(await first({ subject: 'no such subject' })).toEqual({ status: 'timeout', cursor: ids[4] });
    expect(await wait(t.mail, address, { after: ids[1]!, subject: 'welcome', timeout: 0 })).toEqual({
      status: 200,
      body: { status: 'timeout', cursor: ids[4] },
    });

    // A live match after messages that do not match.
    const pending = wait(t.mail, address, { after: ids[4]!, subject: 'the one', timeout: 20 });
    await waitersReach(t.mail.url, 1);
    await t.mail.send({ from: 'x@sender.test', to: address, subject: 'not it', text: 'x' });
    await t.mail.send({ from: 'x@sender.test', to: address, subject: 'This is THE ONE', text: 'x' });
    expect((await pending).body.message?.subject).toBe('This is THE ONE');
  });

  it('answers a timeout (200, status "timeout") when nothing comes, even past the request timeout', async () => {
    const address = await t.mail.inbox();
    // HTTP_REQUEST_TIMEOUT_SECONDS is 1 here: a wait of 2 s is not cut by it.
    const { status, body } = await wait(t.mail, address, { timeout: 2 });
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'timeout', cursor: NIL });
    // The default timeout applies when none is given, and a message answers it.
    const pending = wait(t.mail, address);
    await waitersReach(t.mail.url, 1);
    await t.mail.send({ from: 'x@sender.test', to: address, subject: 'default', text: 'x' });
    expect((await pending).body.status).toBe('message');
  });

  it('brings the code and links of a message stored by an older extractor up to date before filtering on them', async () => {
    const address = await t.mail.inbox();
    const inbox = { id: await inboxId(t.mail.url, address), address };
    const html = '<p>Welcome!</p><p><a href="https://service.test/confirm?t=9">Confirm your email address</a></p><p>Code: 604187</p>';
    const raw = Buffer.from(
      `From: old@sender.test\r\nTo: ${address}\r\nSubject: Before versions\r\nContent-Type: text/html\r\n\r\n${html}\r\n`,
    );
    // As a receiver of an earlier version stored it: no code found by detector 0, links without text or kind.
    const id = await storeMessage(t.db.pool, inbox, {
      subject: 'Before versions',
      bodyText: 'Welcome! Confirm your email address Code: 604187',
      bodyHtml: html,
      otp: null,
      otpVersion: 0,
      links: [{ index: 0, url: 'https://service.test/confirm?t=9' } as never],
      linksVersion: 0,
      raw,
    });
    const { body } = await wait(t.mail, address, { after: NIL, timeout: 0, link_kind: 'verify', has_otp: true });
    expect(body).toMatchObject({ status: 'message', cursor: id, otp: '604187' });
    expect(body.link).toMatchObject({ url: 'https://service.test/confirm?t=9', kind: 'verify' });
  });

  it('is 404 on a private inbox without its owner credentials, and waits for its owner', async () => {
    const token = await tokenOf('wait-owner', 3);
    const res = await t.mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, private: true }, headers: bearer(token) });
    expect(res.status).toBe(201);
    const { address } = (await res.json()) as { address: string };
    expect((await wait(t.mail, address, { timeout: 0 })).status).toBe(404);
    const other = await waitFor(t.mail.url, address, { timeout: 0 }, { headers: bearer(await tokenOf('someone-else', 3)) });
    expect(other.status).toBe(404);
    const pending = waitFor(t.mail.url, address, { timeout: 20 }, { headers: bearer(token) });
    await waitersReach(t.mail.url, 1);
    await t.mail.send({ from: 'x@sender.test', to: address, subject: 'private', text: 'x' });
    expect((await pending).body.message?.subject).toBe('private');
  });

  it('answers 404 for an unknown inbox and 400 naming the parameter for a bad query', async () => {
    const unknown = await t.mail.call(`/api/v1/inboxes/nobody@${DOMAIN}/wait?timeout=0`);
    expect(unknown.status).toBe(404);
    expect((await problemOf(unknown)).code).toBe('not_found');
    const address = await t.mail.inbox();
    const bad: [WaitQuery, string][] = [
      [{ after: 'not-a-uuid' }, '/after'],
      [{ after: 'urn:uuid:00000000-0000-0000-0000-000000000000' }, '/after'],
      [{ timeout: 21 }, '/timeout'],
      [{ timeout: -1 }, '/timeout'],
      [{ timeout: 'soon' }, '/timeout'],
      [{ has_otp: 'maybe' }, '/has_otp'],
      [{ link_kind: 'login' }, '/link_kind'],
      [{ tag: '' }, '/tag'],
      [{ color: 'blue' }, '/color'],
    ];
    for (const [query, path] of bad) {
      const { status, body } = await wait(t.mail, address, query);
      expect(status, JSON.stringify(query)).toBe(400);
      expect(body.code).toBe('validation_failed');
      expect(body.errors!.map((e) => [e.location, e.path])).toEqual([['query', path]]);
    }
  });
});
