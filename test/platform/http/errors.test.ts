// Every error path of the app factory answers problem+json with the documented status and code.
import { connect } from 'node:net';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../../src/platform/db/index.ts';
import { Problem, invalid, problemResponses, type RoutePlugin } from '../../../src/platform/http/index.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { bareApp, problemOf, serve, type Served } from '../../helpers/http.ts';

const routes: RoutePlugin = async (app) => {
  app.post(
    '/things',
    {
      schema: {
        body: Type.Object(
          {
            name: Type.String({ minLength: 1 }),
            count: Type.Integer({ minimum: 1 }),
            kind: Type.Optional(Type.Enum(['a', 'b'])),
            tags: Type.Optional(Type.Array(Type.String())),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ name: Type.String(), count: Type.Integer() }), ...problemResponses(400, 413, 415) },
      },
    },
    async (request, reply) => reply.code(201).send({ name: request.body.name, count: request.body.count }),
  );
  app.get(
    '/list',
    { schema: { querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }) } },
    async (request) => ({ limit: request.query.limit }),
  );
  app.get('/boom', async () => {
    throw new Error('secret internals: SELECT * FROM keys');
  });
  app.get('/conflict', async () => {
    throw new Problem('conflict', 'the job is finished', { headers: { 'x-extra': '1' } });
  });
  app.get('/invalid', async () => {
    throw invalid([{ location: 'body', path: '/domains/2', message: 'is not a host name' }]);
  });
};

let db: TestDatabase;
let served: Served;

beforeAll(async () => {
  db = await createTestDatabase();
  const app = await bareApp({ pool: db.pool, routes });
  served = await serve(app);
});
afterAll(async () => {
  await served.close();
  await db.pool.end();
});

const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${served.url}/things`, { method: 'POST', body, headers });

describe('request bodies', () => {
  it('accepts a valid body', async () => {
    const res = await post(JSON.stringify({ name: 'x', count: 2 }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: 'x', count: 2 });
  });

  it.each([['{bad'], ['{"name": "x",'], ['[1, 2'], ['nul']])('malformed JSON %j → 400 invalid_json', async (text) => {
    const res = await post(text);
    expect(res.status).toBe(400);
    expect((await problemOf(res)).code).toBe('invalid_json');
  });

  it('an empty JSON body → 400 invalid_json', async () => {
    const res = await post('');
    expect(res.status).toBe(400);
    expect((await problemOf(res)).code).toBe('invalid_json');
  });

  it('prototype poisoning → 400 invalid_json', async () => {
    const res = await post('{"name":"x","count":1,"__proto__":{"admin":true}}');
    expect(res.status).toBe(400);
    expect((await problemOf(res)).code).toBe('invalid_json');
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x'], ['application/xml']])(
    'Content-Type %s → 415 unsupported_media_type',
    async (type) => {
      const res = await post('name=x', { 'content-type': type });
      expect(res.status).toBe(415);
      expect((await problemOf(res)).code).toBe('unsupported_media_type');
    },
  );

  it('a body without Content-Type → 415', async () => {
    const res = await fetch(`${served.url}/things`, { method: 'POST', body: new Uint8Array(Buffer.from('{"name":"x","count":1}')) });
    expect(res.status).toBe(415);
    expect((await problemOf(res)).code).toBe('unsupported_media_type');
  });

  it('a 5 MiB body → 413 payload_too_large', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024), count: 1 });
    const res = await post(big);
    expect(res.status).toBe(413);
    expect((await problemOf(res)).code).toBe('payload_too_large');
  });

  it('schema violations → 400 validation_failed naming each field by JSON pointer', async () => {
    const res = await post(JSON.stringify({ count: '3', kind: 'z', extra: 1, tags: ['ok', 5] }));
    expect(res.status).toBe(400);
    const problem = await problemOf(res);
    expect(problem.code).toBe('validation_failed');
    const errors = problem.errors as { path: string; location: string; message: string }[];
    const byPath = Object.fromEntries(errors.map((e) => [e.path, e.message]));
    expect(byPath['/name']).toBe('is required');
    expect(byPath['/count']).toMatch(/integer/); // a body string is never coerced to a number
    expect(byPath['/kind']).toBe('must be one of: a, b');
    expect(byPath['/extra']).toBe('is not a known field');
    expect(byPath['/tags/1']).toMatch(/string/);
    expect(errors.every((e) => e.location === 'body')).toBe(true);
    expect(problem.detail).toContain('body/');
  });

  it("a handler's own validation uses the same envelope", async () => {
    const res = await fetch(`${served.url}/invalid`);
    expect(res.status).toBe(400);
    const problem = await problemOf(res);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toEqual([{ location: 'body', path: '/domains/2', message: 'is not a host name' }]);
  });
});

describe('query strings', () => {
  it('coerces query values and applies defaults', async () => {
    expect(await (await fetch(`${served.url}/list?limit=7`)).json()).toEqual({ limit: 7 });
    expect(await (await fetch(`${served.url}/list`)).json()).toEqual({ limit: 20 });
  });

  it.each([['0'], ['101'], ['abc'], ['1.5']])('limit=%s → 400 naming the query field', async (value) => {
    const res = await fetch(`${served.url}/list?limit=${value}`);
    expect(res.status).toBe(400);
    const problem = await problemOf(res);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ location: 'query', path: '/limit' })]);
  });
});

describe('routes and failures', () => {
  it('an unknown path → 404 not_found', async () => {
    const res = await fetch(`${served.url}/no/such/thing?x=1`);
    expect(res.status).toBe(404);
    const problem = await problemOf(res);
    expect(problem.code).toBe('not_found');
    expect(problem.type).toBe('urn:domainkit:problem:not_found');
  });

  it('a thrown bug → 500 internal_error that leaks nothing', async () => {
    const res = await fetch(`${served.url}/boom`);
    expect(res.status).toBe(500);
    const text = await res.clone().text();
    expect((await problemOf(res)).code).toBe('internal_error');
    expect(text).not.toMatch(/SELECT|secret|internals|at .*\.ts/);
  });

  it('a thrown Problem keeps its status, code and headers', async () => {
    const res = await fetch(`${served.url}/conflict`);
    expect(res.status).toBe(409);
    expect(res.headers.get('x-extra')).toBe('1');
    expect((await problemOf(res)).detail).toBe('the job is finished');
  });

  it('ignores a trailing slash', async () => {
    expect((await fetch(`${served.url}/healthz/`)).status).toBe(200);
  });

  it('every response carries a request id', async () => {
    const res = await fetch(`${served.url}/healthz`);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a request the HTTP parser rejects → 400 problem+json', async () => {
    const reply = await rawRequest('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(reply).toContain('application/problem+json');
    expect(reply).toContain('"code":"bad_request"');
  });

  it('oversized headers → 431 problem+json', async () => {
    const reply = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 431 /);
    expect(reply).toContain('"code":"headers_too_large"');
  });
});

describe('health', () => {
  it('/healthz and /readyz answer 200 with a reachable database', async () => {
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${served.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('/readyz answers 503 problem+json when the database is unreachable', async () => {
    // A port nothing listens on: the pool cannot connect.
    const pool = createPool('postgres://x:y@127.0.0.1:1/none', createLogger({ level: 'silent' }));
    const app = await bareApp({ pool });
    const down = await serve(app);
    try {
      const res = await fetch(`${down.url}/readyz`);
      expect(res.status).toBe(503);
      expect((await problemOf(res)).code).toBe('service_unavailable');
      expect((await fetch(`${down.url}/healthz`)).status).toBe(200);
    } finally {
      await down.close();
      await pool.end();
    }
  });
});

function rawRequest(text: string): Promise<string> {
  const { hostname, port } = new URL(served.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let reply = '';
    socket.on('data', (d) => (reply += d));
    socket.on('close', () => resolve(reply));
    socket.on('error', reject);
  });
}
