// The HTTP listeners' bounds (src/platform/http/limits.ts) on the mail API, with a short request timeout and a
// small connection cap set (HTTP_REQUEST_TIMEOUT_SECONDS, HTTP_MAX_CONNECTIONS): a client that dribbles its
// headers or its body is closed, a listener holds no more sockets than its cap, and a live-inbox stream (SSE)
// outlives the request timeout many times over.
import { describe, expect, it } from 'vitest';
import { useMail } from '../../helpers/mail.ts';
import { rawConnect } from '../../helpers/raw-socket.ts';

const TIMEOUT_MS = 1_000;
const MAX_CONNECTIONS = 10;
const t = useMail({
  ssePingSeconds: 1,
  env: { HTTP_REQUEST_TIMEOUT_SECONDS: String(TIMEOUT_MS / 1000), HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS) },
});

const port = () => Number(new URL(t.mail.url).port);

/** Writes `text` a byte every TIMEOUT_MS / 5 until the server closes; resolves with how many bytes went out. */
async function dribble(prefix: string, text: string): Promise<{ sent: number; received: string }> {
  const c = await rawConnect(port());
  c.write(prefix);
  let sent = 0;
  const timer = setInterval(() => c.write(text.slice(sent, ++sent)), TIMEOUT_MS / 5);
  await c.closed;
  clearInterval(timer);
  return { sent, received: c.received() };
}

describe('HTTP request timeout and connection cap', () => {
  it('headers dribbled a byte at a time: the connection is closed before they are complete', async () => {
    const headers = `Host: h\r\nX-Slow: ${'s'.repeat(500)}\r\n\r\n`;
    const { sent, received } = await dribble('GET /healthz HTTP/1.1\r\n', headers);
    expect(sent).toBeLessThan(headers.length);
    expect(received).not.toMatch(/^HTTP\/1\.1 200/);
  }, 30_000);

  it('a body dribbled a byte at a time: the connection is closed before it is complete', async () => {
    const body = JSON.stringify({ local_part: 'x'.repeat(400) });
    const head = `POST /api/v1/inboxes/generate HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { sent, received } = await dribble(head, body);
    expect(sent).toBeLessThan(body.length);
    expect(received).not.toMatch(/^HTTP\/1\.1 201/);
  }, 30_000);

  it(`past ${MAX_CONNECTIONS} sockets the next is closed unanswered; once they go, requests are served again`, async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => rawConnect(port())));
    const extra = await rawConnect(port());
    extra.write('GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n');
    await extra.closed;
    expect(extra.received()).toBe('');
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    // The server counts a socket gone once its close has been handled: a few tries at most.
    const health = () =>
      fetch(`${t.mail.url}/healthz`).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      );
    await expect.poll(health, { timeout: 10_000, interval: 20 }).toBe(200);
  }, 30_000);

  it('an SSE stream stays open with pings for 5 × the request timeout, and receives mail meanwhile', async () => {
    const address = await t.mail.inbox();
    const c = await rawConnect(port());
    c.write(`GET /api/v1/sse/inbox/${address} HTTP/1.1\r\nHost: h\r\nAccept: text/event-stream\r\n\r\n`);
    await c.until('event: connected');
    // Pings come every second: wait for five of them, i.e. well past the 1 s request timeout and its checks.
    await c.until(/(event: ping[\s\S]*){5}/);
    await t.mail.send({ from: 'a@example.org', to: address, subject: 'late', text: 'x' });
    await c.until('new_message');
    expect(c.socket.destroyed).toBe(false);
    c.socket.destroy();
  }, 30_000);
});
