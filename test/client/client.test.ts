// `domainkit/client` (src/client/, docs/client.md) against a real mail API and SMTP receiver: inboxes made
// anonymously and with an account's key, codes and links waited for with mail sent over SMTP before and after
// the wait call, the cursor a client keeps per inbox, filters, the timeout error and problem errors.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MailApiError, MailClient, WaitTimeoutError, type WaitOptions } from '../../src/client/index.ts';
import { JWT_SECRET, keyOf } from '../helpers/accounts.ts';
import { DOMAIN, startMail, useMail } from '../helpers/mail.ts';

const t = useMail({ env: { MAIL_JWT_SECRET: JWT_SECRET } });

/**
 * A fetch that tells each wait call it makes, how many it made and the `after` of each (null: none): the tests
 * send mail once a call is out, and check where the client starts.
 */
function watchedFetch() {
  const afters: (string | null)[] = [];
  const started: (() => void)[] = [];
  const fetcher: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    if (url.pathname.endsWith('/wait')) {
      afters.push(url.searchParams.get('after'));
      for (const tell of started.splice(0)) tell();
    }
    return fetch(input, init);
  };
  return {
    fetch: fetcher,
    waits: () => afters.length,
    afters: () => afters,
    /** Resolves once the next wait call has been sent. */
    nextWait: () => new Promise<void>((resolve) => started.push(resolve)),
  };
}

const codeMail = (to: string, code: string, extra: { from?: string; subject?: string } = {}) =>
  t.mail.send({
    from: extra.from ?? 'Shop <shop@example.org>',
    to,
    subject: extra.subject ?? 'Your sign-up code',
    text: `Your verification code is ${code}. It expires in ten minutes.`,
  });

describe('inboxes and messages', () => {
  it('createInbox without credentials generates an anonymous inbox; read, list, raw, delete message and inbox', async () => {
    const client = new MailClient({ baseUrl: t.mail.url });
    const inbox = await client.createInbox({ localPart: 'reader' });
    expect(inbox.address).toBe(`reader@${DOMAIN}`);
    expect(await client.getInbox(inbox.address)).toMatchObject({ address: inbox.address, message_count: 0 });

    await codeMail(inbox.address, '246810');
    const { message } = await client.waitForCode(inbox.address);
    const list = await client.listMessages(inbox.address, { limit: 10 });
    expect(list.map((m) => m.id)).toEqual([message.id]);
    expect(await client.getMessage(message.id)).toMatchObject({ id: message.id, subject: 'Your sign-up code', otp_detected: '246810' });
    expect(await client.getRawMessage(message.id)).toContain('Subject: Your sign-up code');

    await client.deleteMessage(message.id);
    expect(await client.listMessages(inbox.address)).toEqual([]);
    await client.deleteInbox(inbox.address);
    const gone = await client.getInbox(inbox.address).catch((err: unknown) => err);
    expect(gone).toBeInstanceOf(MailApiError);
    expect(gone).toMatchObject({ status: 404, code: 'not_found' });
  });

  it("createInbox with an account's API key makes the account's inbox; a private one is 404 to a client without the key", async () => {
    const key = await keyOf(t.mail, 'client-dev');
    const owner = new MailClient({ baseUrl: t.mail.url, apiKey: key.plaintext });
    const inbox = await owner.createInbox({ label: 'e2e', private: true, ttlSeconds: 600 });
    expect(inbox.address.endsWith(`@${DOMAIN}`)).toBe(true); // the first public domain, found by the client
    expect(inbox).toMatchObject({ label: 'e2e', private: true });

    await codeMail(inbox.address, '135790');
    expect((await owner.waitForCode(inbox.address)).code).toBe('135790');
    const stranger = new MailClient({ baseUrl: t.mail.url });
    await expect(stranger.getInbox(inbox.address)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(stranger.waitForMessage(inbox.address, { timeout: 1000 })).rejects.toMatchObject({ status: 404 });
  });

  it('refuses, before any request, options that need credentials without them, and two kinds of credentials', async () => {
    const client = new MailClient({ baseUrl: t.mail.url });
    await expect(client.createInbox({ label: 'x', private: true })).rejects.toThrow('label, private need credentials');
    expect(() => new MailClient({ baseUrl: t.mail.url, apiKey: 'tm_a', jwt: 'b' })).toThrow('apiKey or jwt, not both');
  });
});

describe('waitForCode', () => {
  it('finds a code mailed before the wait call: a fresh inbox of this client is waited on from its beginning', async () => {
    const watch = watchedFetch();
    const client = new MailClient({ baseUrl: t.mail.url, fetch: watch.fetch });
    const { address } = await client.createInbox();
    await codeMail(address, '482913');
    await expect.poll(async () => (await client.listMessages(address)).length).toBe(1);
    const { code, message } = await client.waitForCode(address);
    expect(code).toBe('482913');
    expect(message).toMatchObject({ to_address: address, from_address: 'shop@example.org', has_otp: true });
    expect(watch.afters()).toEqual([MailClient.BEGINNING]);
  });

  it('finds a code mailed while the call waits, and the next wait returns the next code, not the same one', async () => {
    const watch = watchedFetch();
    const client = new MailClient({ baseUrl: t.mail.url, fetch: watch.fetch });
    const { address } = await client.createInbox();
    const out = watch.nextWait();
    const first = client.waitForCode(address);
    await out;
    await codeMail(address, '111111');
    expect((await first).code).toBe('111111');

    const firstId = (await first).message.id;
    const second = client.waitForCode(address);
    await codeMail(address, '222222');
    expect((await second).code).toBe('222222');
    expect(watch.afters()[0]).toBe(MailClient.BEGINNING);
    expect(watch.afters().at(-1)).toBe(firstId);
  });

  it("on an inbox it did not make, a client's first wait names no cursor (mail from now on); after: BEGINNING takes what is there", async () => {
    const { address } = await new MailClient({ baseUrl: t.mail.url }).createInbox();
    await codeMail(address, '909090');
    await expect.poll(async () => ((await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as unknown[]).length).toBe(1);

    // Without `after` the server answers only with mail stored from the call on (its own tests hold it to that).
    const watch = watchedFetch();
    const other = new MailClient({ baseUrl: t.mail.url, fetch: watch.fetch });
    await other.waitForCode(address, { timeout: 1000 }).catch(() => undefined);
    expect(watch.afters()[0]).toBeNull();
    expect((await other.waitForCode(address, { after: MailClient.BEGINNING })).code).toBe('909090');
    expect(watch.afters().at(-1)).toBe(MailClient.BEGINNING);
  });

  it('a wait longer than one server call resumes from the cursor: mail sent between calls is found', async () => {
    const watch = watchedFetch();
    const client = new MailClient({ baseUrl: t.mail.url, fetch: watch.fetch, pollSeconds: 1 });
    const { address } = await client.createInbox();
    const secondCall = (async () => {
      await watch.nextWait();
      await watch.nextWait();
    })();
    const waiting = client.waitForCode(address, { timeout: 20_000 });
    await secondCall;
    await codeMail(address, '777333');
    expect((await waiting).code).toBe('777333');
    expect(watch.waits()).toBeGreaterThanOrEqual(2);
  });

  it("against a server whose MAIL_WAIT_MAX_SECONDS is below the client's call length, the client shortens its calls", async () => {
    const short = await startMail(t.db, { env: { MAIL_WAIT_MAX_SECONDS: '2' } });
    try {
      const watch = watchedFetch();
      const client = new MailClient({ baseUrl: short.url, fetch: watch.fetch });
      const { address } = await client.createInbox();
      const waiting = client.waitForCode(address, { timeout: 15_000 });
      // Calls of 14, 7 and 3 s are refused, each halving the next; then 1 s calls follow one another.
      await expect.poll(() => watch.waits()).toBeGreaterThanOrEqual(5);
      await short.send({ from: 'shop@example.org', to: address, subject: 'Code', text: 'Your verification code is 313131.' });
      expect((await waiting).code).toBe('313131');
    } finally {
      await short.close();
    }
  });
});

describe('waitForMessage and waitForLink', () => {
  it('filters by sender and subject, skipping what does not match', async () => {
    const client = new MailClient({ baseUrl: t.mail.url });
    const { address } = await client.createInbox();
    await codeMail(address, '101010', { from: 'news@example.org', subject: 'Weekly news' });
    await codeMail(address, '202020', { from: 'billing@example.org', subject: 'Invoice 7' });
    const byFrom = await client.waitForMessage(address, { from: 'BILLING@', after: MailClient.BEGINNING });
    expect(byFrom.message.subject).toBe('Invoice 7');
    expect(byFrom.otp).toBe('202020');
    const bySubject = await client.waitForMessage(address, { subject: 'weekly', after: MailClient.BEGINNING });
    expect(bySubject.message.from_address).toBe('news@example.org');
  });

  it('waitForLink({kind}) gives the link of that kind with its anchor text', async () => {
    const client = new MailClient({ baseUrl: t.mail.url });
    const { address } = await client.createInbox();
    await t.mail.send({
      from: 'accounts@example.org',
      to: address,
      subject: 'Confirm your address',
      html: `<p>Welcome!</p>
        <p><a href="https://app.example.org/verify-email?token=abc123">Verify your email address</a></p>
        <p><a href="https://app.example.org/unsubscribe?u=9">Unsubscribe</a></p>`,
    });
    const link = await client.waitForLink(address, { kind: 'verify' });
    expect(link).toMatchObject({
      url: 'https://app.example.org/verify-email?token=abc123',
      text: 'Verify your email address',
      kind: 'verify',
    });
    expect(link.message.subject).toBe('Confirm your address');
    const unsubscribe = await client.waitForLink(address, { kind: 'unsubscribe', after: MailClient.BEGINNING });
    expect(unsubscribe.url).toBe('https://app.example.org/unsubscribe?u=9');
  });
});

describe('errors', () => {
  it('no matching message in time: WaitTimeoutError with the cursor to resume from', async () => {
    const client = new MailClient({ baseUrl: t.mail.url });
    const { address } = await client.createInbox();
    const err = await client.waitForMessage(address, { timeout: 1500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(err).not.toBeInstanceOf(MailApiError);
    expect(err).toMatchObject({ name: 'WaitTimeoutError', address, timeout: 1500, cursor: MailClient.BEGINNING });
  });

  it('an error answer is a MailApiError with the problem: status, code, detail', async () => {
    const client = new MailClient({ baseUrl: t.mail.url });
    const unknown = await client.getInbox(`nobody@${DOMAIN}`).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(MailApiError);
    expect(unknown).toMatchObject({ name: 'MailApiError', status: 404, code: 'not_found' });
    expect((unknown as MailApiError).problem.type).toBe('urn:domainkit:problem:not_found');

    const invalid = (await client.createInbox({ localPart: 'Not An Address' }).catch((e: unknown) => e)) as MailApiError;
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(invalid.detail).toBeTruthy();

    const { address } = await client.createInbox();
    const badFilter = { linkKind: 'nonsense' } as unknown as WaitOptions;
    await expect(client.waitForMessage(address, badFilter)).rejects.toMatchObject({ status: 400, code: 'validation_failed' });
    await expect(client.waitForMessage(`nobody@${DOMAIN}`, { timeout: 1000 })).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it("an answer that is not problem+json (a proxy's page) is a MailApiError with code unexpected_response", async () => {
    const proxy = createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>'));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const client = new MailClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mail/` });
      await expect(client.getInbox(`a@${DOMAIN}`)).rejects.toMatchObject({
        status: 502,
        code: 'unexpected_response',
        detail: '<html>Bad Gateway</html>',
      });
    } finally {
      proxy.close();
    }
  });

  it("aborting the caller's signal ends a wait with the signal's reason", async () => {
    const watch = watchedFetch();
    const client = new MailClient({ baseUrl: t.mail.url, fetch: watch.fetch });
    const { address } = await client.createInbox();
    const controller = new AbortController();
    const out = watch.nextWait();
    const waiting = client.waitForMessage(address, { signal: controller.signal }).catch((e: unknown) => e);
    await out;
    controller.abort();
    expect(await waiting).toMatchObject({ name: 'AbortError' });
  });
});
