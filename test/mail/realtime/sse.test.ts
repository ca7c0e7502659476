// GET /api/v1/sse/inbox/{address} with a real EventSource client (the `eventsource` package) and mail sent over
// real SMTP: events and their order, pings, several subscribers, Last-Event-ID, clean-up, a slow reader, and the
// SMTP receiver in another process than the stream.
import { connect } from 'node:net';
import { EventSource, type FetchLike } from 'eventsource';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { insertMessages, type NewMessage } from '../../../src/mail/store/index.ts';
import { problemOf } from '../../helpers/http.ts';
import { DOMAIN, startMail, useMail, useSmtpProcess, type Mail } from '../../helpers/mail.ts';
import { SmtpClient } from '../../helpers/smtp.ts';

interface Received {
  type: string;
  id: string;
  data: Record<string, unknown>;
}

/** An EventSource that records every event, in the order they came; `until` waits for them. */
class Recorder {
  readonly events: Received[] = [];
  readonly source: EventSource;

  constructor(url: string, lastEventId?: string) {
    const withHeader: FetchLike = (input, init) =>
      fetch(input, { ...init, headers: { ...init.headers, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } });
    this.source = new EventSource(url, { fetch: withHeader });
    for (const type of ['connected', 'message', 'ping']) {
      this.source.addEventListener(type, (e) => {
        this.events.push({ type, id: e.lastEventId, data: JSON.parse(e.data) as Record<string, unknown> });
      });
    }
  }

  of(type: string): Received[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Resolves once `count` events of `type` have come (waiting 15 s at most); all of that type so far. */
  until(type: string, count: number): Promise<Received[]> {
    return vi.waitFor(
      () => {
        const got = this.of(type);
        if (got.length < count) throw new Error(`waited for ${count} ${type} events, have ${got.length}`);
        return got;
      },
      { timeout: 15_000, interval: 20 },
    );
  }

  close(): void {
    this.source.close();
  }
}

const open: Recorder[] = [];
function subscribe(mail: Mail, address: string, lastEventId?: string): Recorder {
  const recorder = new Recorder(`${mail.url}/api/v1/sse/inbox/${encodeURIComponent(address)}`, lastEventId);
  open.push(recorder);
  return recorder;
}
afterEach(() => {
  for (const r of open.splice(0)) r.close();
});

/** Waits until the mail API process has `count` live subscribers (15 s at most). */
async function subscribersReach(mail: Mail, count: number, what: string): Promise<void> {
  await expect.poll(() => mail.liveSubscribers(), { timeout: 15_000, interval: 20, message: what }).toBe(count);
}

describe('SSE in the same process as SMTP', () => {
  const t = useMail({ ssePingSeconds: 1 });

  it('answers 404 problem before any stream for an unknown inbox, and sends stream headers for a live one', async () => {
    const res = await fetch(`${t.mail.url}/api/v1/sse/inbox/nobody@${DOMAIN}`);
    expect(res.status).toBe(404);
    expect((await problemOf(res)).code).toBe('not_found');

    const address = await t.mail.inbox();
    const controller = new AbortController();
    const live = await fetch(`${t.mail.url}/api/v1/sse/inbox/${address.toUpperCase()}`, { signal: controller.signal });
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(live.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(live.headers.get('x-accel-buffering')).toBe('no');
    const reader = live.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain(`event: connected\ndata: {"address":"${address}"}`);
    controller.abort();
  });

  it('sends connected, then one message event per delivered email, in order, with the message id', async () => {
    const address = await t.mail.inbox();
    const sse = subscribe(t.mail, address);
    const [connected] = await sse.until('connected', 1);
    expect(connected!.data).toEqual({ address });

    await t.mail.send({ from: 'First <first@sender.test>', to: address, subject: 'one', text: 'no code here' });
    await t.mail.send({ from: 'second@sender.test', to: address, subject: 'Your code', text: 'Your verification code is 482913.' });
    await t.mail.send({ from: 'third@sender.test', to: address, subject: 'ünïcödé "quoted"\nline', text: 'three' });
    const events = await sse.until('message', 3);

    const listed = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string }[];
    const ids = listed.map((m) => m.id).reverse(); // the list is newest first
    expect(events.map((e) => e.id)).toEqual(ids);
    expect(events.map((e) => e.data)).toEqual([
      { type: 'new_message', id: ids[0], from: 'first@sender.test', subject: 'one', has_otp: false, tag: null },
      { type: 'new_message', id: ids[1], from: 'second@sender.test', subject: 'Your code', has_otp: true, tag: null },
      { type: 'new_message', id: ids[2], from: 'third@sender.test', subject: 'ünïcödé "quoted" line', has_otp: false, tag: null },
    ]);
    expect(sse.events.indexOf(connected!)).toBe(0);
  });

  it('pings every MAIL_SSE_PING_SECONDS (1 s here) with {ts}, from one timer for every client', async () => {
    // Three pings within the 15 s wait: the setting is used (the default is 15 s between pings).
    const early = subscribe(t.mail, await t.mail.inbox());
    await early.until('ping', 1);
    const late = subscribe(t.mail, await t.mail.inbox());
    const pings = await late.until('ping', 3);
    for (const ping of pings) expect(Date.parse(ping.data.ts as string)).not.toBeNaN();
    // One timer per process: from the late client's first ping to its third, the early client (another inbox,
    // subscribed a tick before) got the very same pings, by their server time, and none in between.
    const stamps = (r: Recorder) => r.of('ping').map((p) => p.data.ts as string);
    await vi.waitFor(() => expect(stamps(early)).toContain(stamps(late)[2]), { timeout: 15_000 });
    const from = stamps(early).indexOf(stamps(late)[0]!);
    expect(stamps(early).slice(from, from + 3)).toEqual(stamps(late).slice(0, 3));
    // Never more often than the setting, by the server's own clock (a busy machine can only delay a tick).
    const gaps = pings.slice(1).map((p, i) => Date.parse(p.data.ts as string) - Date.parse(pings[i]!.data.ts as string));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(900);
  });

  it('gives two subscribers of an inbox every event, and none of another inbox', async () => {
    const [address, other] = [await t.mail.inbox(), await t.mail.inbox()];
    const a = subscribe(t.mail, address);
    const b = subscribe(t.mail, address);
    const c = subscribe(t.mail, other);
    await Promise.all([a.until('connected', 1), b.until('connected', 1), c.until('connected', 1)]);
    await t.mail.send({ from: 'x@sender.test', to: address, subject: 'for both', text: 'hi' });
    await t.mail.send({ from: 'x@sender.test', to: other, subject: 'for c', text: 'hi' });
    const [ea, eb, ec] = await Promise.all([a.until('message', 1), b.until('message', 1), c.until('message', 1)]);
    expect(ea.map((e) => e.data.subject)).toEqual(['for both']);
    expect(eb.map((e) => e.id)).toEqual(ea.map((e) => e.id));
    expect(ec.map((e) => e.data.subject)).toEqual(['for c']);
  });

  it('replays what came after Last-Event-ID first, then goes on live, each message once', async () => {
    const address = await t.mail.inbox();
    for (const subject of ['m1', 'm2', 'm3']) await t.mail.send({ from: 'x@sender.test', to: address, subject, text: subject });
    const listed = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string; subject: string }[];
    const first = listed.find((m) => m.subject === 'm1')!;

    const sse = subscribe(t.mail, address, first.id);
    await sse.until('message', 2);
    await t.mail.send({ from: 'x@sender.test', to: address, subject: 'm4', text: 'm4' });
    await sse.until('message', 3);
    // m5 marks the end: a stream is in order, so anything sent twice before it would have come before it.
    await t.mail.send({ from: 'x@sender.test', to: address, subject: 'm5', text: 'm5' });
    const events = await sse.until('message', 4);
    expect(sse.of('message').map((e) => e.data.subject)).toEqual(['m2', 'm3', 'm4', 'm5']);
    expect(events[0]!.id).toBe(listed.find((m) => m.subject === 'm2')!.id);

    // A Last-Event-ID that is not an id of ours replays nothing: the first message the stream carries is the next
    // live one (a replay comes before live events).
    const fresh = subscribe(t.mail, address, 'not-an-id');
    await fresh.until('connected', 1);
    await t.mail.send({ from: 'x@sender.test', to: address, subject: 'm6', text: 'm6' });
    await fresh.until('message', 1);
    expect(fresh.of('message').map((e) => e.data.subject)).toEqual(['m6']);
  });

  it('forgets a client as soon as it disconnects', async () => {
    await subscribersReach(t.mail, 0, "earlier tests' clients to be gone");
    const sse = subscribe(t.mail, await t.mail.inbox());
    await sse.until('connected', 1);
    expect(await t.mail.liveSubscribers()).toBe(1);
    sse.close();
    await subscribersReach(t.mail, 0, 'the subscriber to be removed');
  });

  it('a client that stops reading holds up nobody, and one that reads slowly gets every event in order', async () => {
    const address = await t.mail.inbox();
    const inboxId = ((await (await t.mail.call(`/api/v1/inboxes/${address}`)).json()) as { id: string }).id;
    await subscribersReach(t.mail, 0, "earlier tests' clients to be gone");
    const reader = subscribe(t.mail, address);
    await reader.until('connected', 1);
    // A raw client that never reads after its request.
    const stalled = connect(Number(new URL(t.mail.url).port), '127.0.0.1');
    stalled.on('error', () => undefined);
    stalled.write(`GET /api/v1/sse/inbox/${address} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    stalled.pause();
    await subscribersReach(t.mail, 2, 'the stalled client to subscribe');

    // 4,000 messages with 2 KB subjects, stored 200 at a time: ~8 MB of events in bursts far larger than any
    // socket buffer, so both streams fill up; the reader's is drained and caught up from the database.
    const total = 4000;
    const subjects: string[] = [];
    for (let batch = 0; batch < total / 200; batch++) {
      const messages = Array.from({ length: 200 }, (_, i) => fakeMessage(inboxId, address, `s${batch * 200 + i} ${'x'.repeat(2000)}`));
      subjects.push(...messages.map((m) => m.subject));
      await insertMessages(t.db.pool, messages);
    }
    const events = await reader.until('message', total);
    expect(events.map((e) => e.data.subject)).toEqual(subjects);
    expect(await t.mail.liveSubscribers()).toBe(2); // the stalled one is still there, costing a socket and no queue
    stalled.destroy();
    await subscribersReach(t.mail, 1, 'the stalled client to be removed once it goes');
  }, 60_000);
});

function fakeMessage(inboxId: string, address: string, subject: string): NewMessage {
  return {
    id: uuidv7(),
    inboxId,
    envelopeFrom: 'bulk@sender.test',
    toAddress: address,
    fromAddress: 'bulk@sender.test',
    subject,
    bodyText: 'bulk',
    bodyHtml: null,
    headers: {},
    attachments: [],
    parseError: null,
    otp: null,
    otpVersion: 0,
    links: [],
    linksVersion: 1,
    raw: Buffer.from(`Subject: ${subject}\r\n\r\nbulk\r\n`),
    tag: null,
  };
}

describe('SSE with the SMTP receiver in another process', () => {
  const t = useMail();
  const smtpPort = useSmtpProcess(t);

  it('hears of mail stored by `domainkit smtp` (another process), through PostgreSQL', async () => {
    const address = await t.mail.inbox();
    const sse = subscribe(t.mail, address);
    await sse.until('connected', 1);
    const client = await SmtpClient.connect(smtpPort());
    for (const subject of ['from another process', 'and another']) {
      const reply = await client.send(
        { from: 'far@sender.test', to: [address] },
        Buffer.from(`From: far@sender.test\r\nTo: ${address}\r\nSubject: ${subject}\r\n\r\nbody\r\n`),
      );
      expect(reply.code).toBe(250);
    }
    await client.quit();
    const events = await sse.until('message', 2);
    expect(events.map((e) => e.data.subject)).toEqual(['from another process', 'and another']);
  });

  it('a client reconnecting to a new API process with Last-Event-ID gets what was stored while it was away', async () => {
    const address = await t.mail.inbox();
    const api = await startMail(t.db);
    const sse = subscribe(api, address);
    await sse.until('connected', 1);
    const client = await SmtpClient.connect(smtpPort());
    const send = (subject: string) =>
      client.send({ from: 'far@sender.test', to: [address] }, Buffer.from(`Subject: ${subject}\r\n\r\nbody\r\n`));
    await send('before');
    await sse.until('message', 1);
    // The API process goes away (its streams end), mail comes meanwhile, and the client reconnects elsewhere:
    // the EventSource sends Last-Event-ID by itself.
    const url = new URL(api.url);
    await api.close();
    await send('while away');
    const again = await startMail(t.db, { port: Number(url.port) });
    await send('after');
    const events = await sse.until('message', 3);
    expect(events.map((e) => e.data.subject)).toEqual(['before', 'while away', 'after']);
    await client.quit();
    await again.close();
  });
});
