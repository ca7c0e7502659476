// A body over the 1 MiB limit announced by Content-Length gets the 413 problem that the client reads, on both
// APIs, even when the client writes its whole body before it reads anything (as Python's http.client does):
// the server reads and discards the body instead of closing under it, and the connection stays usable.
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DISCARD_LIMIT_BYTES } from '../../../src/platform/http/body-limit.ts';
import { tokenFor, useJobsApi } from '../../helpers/jobs.ts';
import { useMail } from '../../helpers/mail.ts';

const m = useMail();
const j = useJobsApi();

const apis = [
  { name: 'mail', url: () => m.mail.url, path: '/api/v1/inboxes/generate', auth: async () => '' },
  {
    name: 'jobs',
    url: () => j.api.url,
    path: '/v1/jobs',
    auth: async () => `Authorization: Bearer ${await tokenFor(j.db, `t${Math.random()}`)}\r\n`,
  },
];

interface Exchange {
  /** Everything the server sent, as latin1 text. */
  received: string;
  /** The error the client's writes met, if any (EPIPE, ECONNRESET, ECANCELED: the server closed under it). */
  writeError: string | undefined;
}

/** Sends `head` and then `bodyBytes` bytes in 64 KiB writes, reading nothing until all are written. */
async function writeAllThenRead(socket: Socket, head: string, bodyBytes: number): Promise<string | undefined> {
  socket.pause(); // read nothing yet: the bytes the server sends wait in the socket
  const chunk = Buffer.alloc(64 * 1024, 'a');
  try {
    await write(socket, head);
    for (let sent = 0; sent < bodyBytes; sent += chunk.length)
      await write(socket, chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent)));
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return reject(Object.assign(new Error('closed'), { code: 'ECONNRESET' }));
    socket.write(data, (err) => (err ? reject(err) : resolve()));
  });
}

/** Reads until `wanted` has arrived (or the connection ends). */
function readUntil(socket: Socket, wanted: RegExp, sofar = ''): Promise<string> {
  return new Promise((resolve) => {
    let text = sofar;
    const done = () => {
      socket.off('data', onData);
      resolve(text);
    };
    const onData = (d: Buffer) => {
      text += d.toString('latin1');
      if (wanted.test(text)) done();
    };
    socket.on('data', onData);
    socket.once('close', done);
    socket.resume();
  });
}

async function oversizedPost(
  api: Pick<(typeof apis)[number], 'url' | 'path' | 'auth'>,
  bodyBytes: number,
  wanted = /\r\n\r\n[\s\S]*"code":"payload_too_large"[^}]*}/,
): Promise<Exchange & { socket: Socket }> {
  const url = new URL(api.url());
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  const head =
    `POST ${api.path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n${await api.auth()}` +
    `Content-Length: ${bodyBytes}\r\n\r\n`;
  const writeError = await writeAllThenRead(socket, head, bodyBytes);
  const received = await readUntil(socket, wanted);
  return { received, writeError, socket };
}

describe.each(apis)('$name API: a body over the limit with Content-Length', (api) => {
  it.each([2, 20])(
    '%i MiB written in full before reading: the 413 problem is read, and the connection serves the next request',
    async (mib) => {
      const { received, writeError, socket } = await oversizedPost(api, mib * 1024 * 1024);
      expect(writeError, received.slice(0, 300)).toBeUndefined();
      expect(received).toMatch(/^HTTP\/1\.1 413 /);
      expect(received).toMatch(/content-type: application\/problem\+json/i);
      const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as { code: string; detail: string };
      expect(body.code).toBe('payload_too_large');
      expect(body.detail).toContain(`${mib * 1024 * 1024} bytes`);
      // The same connection answers a next request: nothing of the discarded body was taken for one.
      socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
      const next = await readUntil(socket, /"status":"ok"/);
      expect(next).toMatch(/^HTTP\/1\.1 200 /);
      socket.destroy();
    },
  );

  it('a client that sends more than the discard limit is cut off, and the API answers the next client', async () => {
    const { writeError, socket } = await oversizedPost(api, DISCARD_LIMIT_BYTES + 8 * 1024 * 1024);
    expect(writeError).toMatch(/EPIPE|ECONNRESET|ECANCELED/);
    socket.destroy();
    const res = await fetch(`${api.url()}/healthz`);
    expect(res.status).toBe(200);
  });
});

describe('credentials come first', () => {
  it('the jobs API answers an oversized body without a key 401, not 413, and the client reads it', async () => {
    const noKey = { url: () => j.api.url, path: '/v1/jobs', auth: async () => '' };
    const { received, writeError, socket } = await oversizedPost(noKey, 2 * 1024 * 1024, /"code":"unauthorized"[^}]*}/);
    socket.destroy();
    expect(writeError, received.slice(0, 300)).toBeUndefined();
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
  });
});
