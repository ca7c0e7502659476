// Sub-addressing over real SMTP (docs/api/README.md, "Tags"): mail to name+tag@domain reaches name@domain with
// its tag, which the list, the message, the live stream and the webhook all carry; an inbox whose address holds
// the + itself wins; one copy per inbox, the first tag named; a tag too long is an unknown address; a namespace's
// inbox made by its first mail sends the namespace's signed webhook with the tag.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, JWT_SECRET, tokenOf } from '../../helpers/accounts.ts';
import { DOMAIN, useMail } from '../../helpers/mail.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { SmtpClient } from '../../helpers/smtp.ts';
import { openStream } from '../../helpers/sse-fetch.ts';

const t = useMail({ worker: true, env: { MAIL_JWT_SECRET: JWT_SECRET, ALLOW_PRIVATE_NETWORK: 'true' } });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver(() => 200);
});
afterAll(async () => {
  await receiver?.close();
});

interface Listed {
  id: string;
  subject: string;
  tag: string | null;
}

const list = async (address: string): Promise<Listed[]> =>
  (await (await t.mail.call(`/api/v1/inboxes/${encodeURIComponent(address)}/messages`)).json()) as Listed[];

async function sendRaw(to: string[], subject: string): Promise<{ code: number; text: string }> {
  const smtp = await SmtpClient.connect(t.mail.smtpPort);
  try {
    return await smtp.send({ from: 'shop@sender.test', to }, Buffer.from(`Subject: ${subject}\r\n\r\nhello\r\n`));
  } finally {
    await smtp.quit();
  }
}

describe('tags', () => {
  it('name+tag@domain reaches name@domain; the tag is in the list, the message, the SSE event and the webhook', async () => {
    const res = await t.mail.call('/api/v1/inboxes', {
      body: { domain: DOMAIN, local_part: 'signup', webhook_url: `${receiver.url}/tags` },
      headers: bearer(await tokenOf('tagger', 3)),
    });
    expect(res.status).toBe(201);
    const stream = await openStream(`${t.mail.url}/api/v1/sse/inbox/signup@${DOMAIN}`);
    await stream.until('connected', 1);

    await t.mail.send({ from: 'shop@sender.test', to: `Signup+Run-42@${DOMAIN}`, subject: 'tagged', text: 'code 482913' });
    await t.mail.send({ from: 'shop@sender.test', to: `signup@${DOMAIN}`, subject: 'plain', text: 'hi' });

    const [event, plainEvent] = await stream.until('message', 2);
    stream.close();
    const listed = await list(`signup@${DOMAIN}`);
    expect(listed.map((m) => [m.subject, m.tag])).toEqual([
      ['plain', null],
      ['tagged', 'run-42'],
    ]);
    const tagged = listed[1]!;
    const message = (await (await t.mail.call(`/api/v1/messages/${tagged.id}`)).json()) as Record<string, unknown>;
    expect(message).toMatchObject({ tag: 'run-42', to_address: `signup+run-42@${DOMAIN}`, subject: 'tagged' });
    expect(event!.data).toMatchObject({ id: tagged.id, tag: 'run-42' });
    expect(plainEvent!.data).toMatchObject({ tag: null });

    const requests = await receiver.waitFor('/tags', 2);
    const bodies = requests.map((r) => JSON.parse(r.body.toString('utf8')) as { message: { id: string; tag: string | null } });
    expect(bodies.map((b) => b.message.tag).sort()).toEqual(['run-42', null].sort());
    expect(bodies.find((b) => b.message.id === tagged.id)!.message.tag).toBe('run-42');
  });

  it('an inbox whose address holds the + wins; other tags of its name reach the inbox of the name', async () => {
    const exact = await t.mail.inbox('box+b');
    const named = await t.mail.inbox('box');
    await sendRaw([`box+b@${DOMAIN}`], 'to the exact one');
    await sendRaw([`box+c@${DOMAIN}`], 'to the tag c');
    expect((await list(exact)).map((m) => [m.subject, m.tag])).toEqual([['to the exact one', null]]);
    expect((await list(named)).map((m) => [m.subject, m.tag])).toEqual([['to the tag c', 'c']]);
  });

  it('one copy per inbox however many of its addresses are named, with the first tag', async () => {
    const address = await t.mail.inbox('multi');
    const reply = await sendRaw([`multi+one@${DOMAIN}`, `multi+two@${DOMAIN}`, `multi@${DOMAIN}`], 'once');
    expect(reply.code).toBe(250);
    expect(reply.text).toContain('stored 1 copy');
    expect((await list(address)).map((m) => m.tag)).toEqual(['one']);
  });

  it('a tag of 64 characters is kept, a longer one makes the address unknown; name+@domain has no tag', async () => {
    const address = await t.mail.inbox('long');
    const ok = 'x'.repeat(64);
    expect((await sendRaw([`long+${ok}@${DOMAIN}`], 'sixty-four')).code).toBe(250);
    const refused = await sendRaw([`long+${ok}y@${DOMAIN}`], 'sixty-five');
    expect(refused.code).toBe(550);
    expect(refused.text).toContain('No such inbox');
    expect((await sendRaw([`long+@${DOMAIN}`], 'empty tag')).code).toBe(250);
    expect((await list(address)).map((m) => [m.subject, m.tag])).toEqual([
      ['empty tag', null],
      ['sixty-four', ok],
    ]);
  });

  it("a namespace's inbox, made by its first mail, sends its webhook signed with the namespace's secret, with the tag", async () => {
    const res = await t.mail.call('/api/v1/namespaces', {
      body: { domain: DOMAIN, name: 'hk', webhook_url: `${receiver.url}/ns-hook` },
      headers: bearer(await tokenOf('ns-hooker', 3)),
    });
    expect(res.status).toBe(201);
    const { webhook_secret: secret } = (await res.json()) as { webhook_secret: string };
    expect((await sendRaw([`hk.signup+t1@${DOMAIN}`], 'first mail')).code).toBe(250);
    const [request] = await receiver.waitFor('/ns-hook', 1);
    const signature = `sha256=${createHmac('sha256', secret).update(request!.body).digest('hex')}`;
    expect(request!.headers['x-mail-signature']).toBe(signature);
    expect(JSON.parse(request!.body.toString('utf8'))).toMatchObject({
      inbox: { address: `hk.signup@${DOMAIN}` },
      message: { subject: 'first mail', tag: 't1' },
    });
  });

  it('a tag of an unknown name is an unknown address', async () => {
    const refused = await sendRaw([`nobody-here+x@${DOMAIN}`], 'lost');
    expect(refused.code).toBe(550);
  });
});
