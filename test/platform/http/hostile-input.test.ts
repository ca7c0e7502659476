// Hostile HTTP input on both APIs, beyond the generated requests of test/{jobs,mail}/api/fuzz.test.ts: bodies
// nested 100,000 deep or over the 1 MiB limit, odd and duplicated headers, very long header values, repeated
// and prototype-named query keys, and every byte in a path segment, percent-encoded and raw. Never a 5xx
// (every refusal a problem+json), and each API answers normally afterwards.
import { describe, expect, it } from 'vitest';
import { tokenFor, useJobsApi } from '../../helpers/jobs.ts';
import { useMail } from '../../helpers/mail.ts';
import { rawConnect } from '../../helpers/raw-socket.ts';

const m = useMail();
const j = useJobsApi();

const apis = [
  { name: 'mail', url: () => m.mail.url, post: '/api/v1/inboxes/generate', get: '/api/v1/inboxes/{}/messages', auth: async () => ({}) },
  {
    name: 'jobs',
    url: () => j.api.url,
    post: '/v1/jobs',
    get: '/v1/jobs/{}/results',
    auth: async () => ({ authorization: `Bearer ${await tokenFor(j.db, `t${Math.random()}`)}` }),
  },
];

/** The status, after checking that a refusal is a problem+json and that nothing is a 5xx. */
async function status(res: Response, what: string): Promise<number> {
  const text = await res.text();
  expect(res.status, `${what}: ${text.slice(0, 200)}`).toBeLessThan(500);
  if (res.status >= 400) expect(res.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
  return res.status;
}

/** One raw HTTP/1.1 request on a socket of its own; resolves with the status line's code (0: closed without). */
async function rawRequest(base: string, head: string | Buffer): Promise<number> {
  const c = await rawConnect(Number(new URL(base).port));
  c.write(head);
  await c.closed;
  const match = /^HTTP\/1\.1 (\d{3})/.exec(c.received());
  return match ? Number(match[1]) : 0;
}

async function answersNormally(api: (typeof apis)[number]): Promise<void> {
  const res = await fetch(`${api.url()}/readyz`);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

describe.each(apis)('$name API: hostile bodies, headers, queries and paths', (api) => {
  it('a JSON body nested 100,000 deep is a 4xx problem; 2 MiB is 413', async () => {
    const headers = { ...(await api.auth()), 'content-type': 'application/json' };
    const deepArray = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepObject = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    for (const body of [deepArray, deepObject]) {
      await status(await fetch(`${api.url()}${api.post}`, { method: 'POST', headers, body }), 'deep');
    }
    const big = JSON.stringify({ domains: Array.from({ length: 80_000 }, (_, i) => `d${i}-${'x'.repeat(10)}.example.com`) });
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(await status(await fetch(`${api.url()}${api.post}`, { method: 'POST', headers, body: big }), 'big')).toBe(413);
    await answersNormally(api);
  });

  it('content-type variants, duplicated headers and a 60 KB header value: no 5xx', async () => {
    const auth = await api.auth();
    for (const type of [
      'application/json; charset=utf-16',
      'APPLICATION/JSON',
      'application/json, text/plain',
      'application/jsonx',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      ';;;',
      '*/*',
    ]) {
      await status(
        await fetch(`${api.url()}${api.post}`, { method: 'POST', headers: { ...auth, 'content-type': type }, body: '{}' }),
        type,
      );
    }
    const host = new URL(api.url()).host;
    const authLine = Object.entries(auth)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const duplicated = [
      `POST ${api.post} HTTP/1.1\r\nHost: ${host}\r\n${authLine}Content-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      `POST ${api.post} HTTP/1.1\r\nHost: ${host}\r\n${authLine}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}`,
      `POST ${api.post} HTTP/1.1\r\nHost: ${host}\r\n${authLine}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      `GET /readyz HTTP/1.1\r\nHost: ${host}\r\nHost: other\r\nAuthorization: a\r\nAuthorization: b\r\nConnection: close\r\n\r\n`,
      `GET /readyz HTTP/1.1\r\nHost: ${host}\r\nX-Long: ${'v'.repeat(60_000)}\r\nConnection: close\r\n\r\n`,
    ];
    for (const head of duplicated) {
      const code = await rawRequest(api.url(), head);
      expect(code, head.slice(0, 120)).toBeGreaterThan(0);
      expect(code, head.slice(0, 120)).toBeLessThan(500);
    }
    await answersNormally(api);
  });

  it('repeated, nested and prototype-named query keys: no 5xx', async () => {
    const auth = await api.auth();
    const list = api.name === 'mail' ? `/api/v1/inboxes/${await m.mail.inbox()}/messages` : '/v1/jobs';
    for (const q of [
      'limit=1&limit=2',
      'limit[]=1',
      'limit[a]=1',
      '__proto__=1',
      '__proto__[limit]=1',
      'constructor[prototype][x]=1',
      'limit=%00',
      'limit=%',
      'limit',
      '=&=&&',
      `x=${'y'.repeat(20_000)}`,
      'cursor=1&cursor=2',
      'a'.repeat(4_000),
    ]) {
      await status(await fetch(`${api.url()}${list}?${q}`, { headers: auth }), q.slice(0, 60));
    }
    await answersNormally(api);
  });

  it('every byte in a path segment, percent-encoded (256 requests) and raw (256 connections): no 5xx', async () => {
    const auth = await api.auth();
    for (let b = 0; b < 256; b++) {
      const hex = `%${b.toString(16).padStart(2, '0').toUpperCase()}`;
      await status(await fetch(`${api.url()}${api.get.replace('{}', `a${hex}b`)}`, { headers: auth }), hex);
    }
    for (let b = 0; b < 256; b++) {
      const path = Buffer.concat([Buffer.from(api.get.replace('{}', 'a').slice(0, -1)), Buffer.from([b]), Buffer.from('b/x')]);
      const head = Buffer.concat([Buffer.from('GET '), path, Buffer.from(` HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`)]);
      const code = await rawRequest(api.url(), head);
      // 0: a byte that ends the request line early (space, CR, LF) leaves a request Node answers or drops.
      expect(code === 0 || code < 500, `byte ${b}: ${code}`).toBe(true);
    }
    await answersNormally(api);
  }, 60_000);
});
