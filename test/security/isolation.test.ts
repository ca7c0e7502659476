// Every authenticated route refuses another tenant's (jobs) or account's (mail) objects with 404, never 403 and
// never the object, for every HTTP method, exactly as it answers an id that does not exist. The routes come
// from each API's own /openapi.json, so a route added later is covered (or this file fails until it is told
// which object of the other tenant to aim at).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey } from '../../src/jobs/index.ts';
import { apiKey, bearer, JWT_SECRET, keyOf, tokenOf } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { problemOf } from '../helpers/http.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../helpers/jobs.ts';
import { DOMAIN, startMail, type Mail } from '../helpers/mail.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const UNKNOWN_ID = '01234567-89ab-7def-8123-456789abcdef';

interface Operation {
  path: string;
  method: string;
  authenticated: boolean;
}

interface OpenApi {
  paths: Record<string, Record<string, { security?: unknown[] }>>;
}

/** The operations of an API's OpenAPI document. */
async function operationsOf(base: string): Promise<Operation[]> {
  const res = await fetch(`${base}/openapi.json`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as OpenApi;
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({ path, method: method.toUpperCase(), authenticated: Array.isArray(op.security) && op.security.length > 0 });
    }
  }
  return ops;
}

/** The resource a path's first parameter names: the segment right before it (`/v1/jobs/{id}/results` → jobs). */
function resourceOf(path: string): string | undefined {
  const segments = path.split('/');
  const at = segments.findIndex((s) => /^\{.+\}$/.test(s));
  return at > 0 ? segments[at - 1] : undefined;
}

/** `path` with its parameter replaced by `id`. */
const fill = (path: string, id: string) => path.replace(/\{[^}]+\}/, encodeURIComponent(id));

type Send = (method: string, path: string) => Promise<Response>;

/**
 * For each route with a path parameter, for each method: B's request for A's object gets what B's request for
 * an unknown id gets, and that is a 404 `not_found` problem that says nothing of A's object.
 */
async function expectInvisible(label: string, path: string, ownerId: string, send: Send, leaks: string[]): Promise<string[]> {
  const seen: string[] = [];
  for (const method of METHODS) {
    const theirs = await send(method, fill(path, ownerId));
    const unknown = await send(method, fill(path, UNKNOWN_ID));
    const where = `${label}: ${method} ${path}`;
    seen.push(`${method} ${theirs.status}`);
    expect(theirs.status, where).toBe(404);
    expect(unknown.status, `${where} (unknown id)`).toBe(404);
    if (method === 'HEAD') continue;
    const a = await problemOf(theirs);
    const b = await problemOf(unknown);
    expect(a.code, where).toBe('not_found');
    // Word for word the answer to an id that never existed (the id itself aside).
    // (an address is percent-encoded in a path, and "no route" answers echo the path as sent)
    expect(JSON.stringify(a).replaceAll(encodeURIComponent(ownerId), '<id>').replaceAll(ownerId, '<id>'), where).toBe(
      JSON.stringify(b).replaceAll(UNKNOWN_ID, '<id>'),
    );
    for (const leak of leaks) expect(JSON.stringify(a), `${where} leaks ${leak}`).not.toContain(leak);
  }
  return seen;
}

describe('jobs API: tenant B never reaches tenant A’s objects', () => {
  let db: TestDatabase;
  let api: JobsApi;
  let aToken: string;
  let bToken: string;
  let aJob: string;
  let aKey: { id: string; token: string };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startJobsApi(db);
    aToken = await tokenFor(db, 'tenant-a');
    bToken = await tokenFor(db, 'tenant-b');
    const res = await client(api.url, aToken)('/v1/jobs', {
      body: { domains: ['example.com'], job_types: ['ping'], webhook_url: 'https://hooks.example.com/a' },
    });
    expect(res.status).toBe(201);
    aJob = ((await res.json()) as { job_id: string }).job_id;
    aKey = await makeKey(db.pool, 'tenant-a', 'a-reader', ['jobs:read']);
    // B has every scope, so a refusal can only come from ownership.
    await client(api.url, bToken)('/v1/jobs', { body: { domains: ['example.org'], job_types: ['ping'] } });
  });
  afterAll(async () => {
    await api?.close();
    await db?.pool.end();
  });

  it('every route with a path id answers 404 to B for A’s object, for every method and either way of sending the key', async () => {
    const ops = await operationsOf(api.url);
    const objects: Record<string, string> = { jobs: aJob, keys: aKey.id };
    const paths = [...new Set(ops.filter((o) => o.authenticated && resourceOf(o.path)).map((o) => o.path))];
    // The documented ones at least; a new one is covered as it appears.
    expect(paths).toEqual(expect.arrayContaining(['/v1/jobs/{id}', '/v1/jobs/{id}/results', '/v1/keys/{id}']));
    for (const path of paths) {
      const owner = objects[resourceOf(path)!];
      expect(owner, `no object of tenant A known for ${path}: add one to this test`).toBeDefined();
      for (const [how, headers] of [
        ['Bearer', bearer(bToken)],
        ['X-API-Key', apiKey(bToken)],
      ] as const) {
        const send: Send = (method, p) =>
          fetch(`${api.url}${p}`, {
            method,
            headers: { ...headers, ...(['POST', 'PUT', 'PATCH'].includes(method) ? { 'content-type': 'application/json' } : {}) },
            ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: '{}' } : {}),
          });
        await expectInvisible(`B by ${how}`, path, owner!, send, ['example.com', 'hooks.example.com', 'tenant-a', 'a-reader']);
      }
    }
  });

  it('B’s lists never hold A’s objects', async () => {
    const ops = await operationsOf(api.url);
    const lists = ops.filter((o) => o.authenticated && o.method === 'GET' && !resourceOf(o.path));
    expect(lists.map((o) => o.path)).toEqual(expect.arrayContaining(['/v1/jobs', '/v1/keys']));
    for (const op of lists) {
      const res = await client(api.url, bToken)(op.path);
      expect(res.status, op.path).toBe(200);
      const text = await res.text();
      for (const id of [aJob, aKey.id]) expect(text, `${op.path} lists ${id}`).not.toContain(id);
    }
  });

  it('A’s objects are untouched by B’s attempts, and A itself reaches them (the ids aimed at were real)', async () => {
    const a = client(api.url, aToken);
    const job = await a(`/v1/jobs/${aJob}`);
    expect(job.status).toBe(200);
    expect(((await job.json()) as { status: string }).status).toBe('queued');
    expect((await a(`/v1/jobs/${aJob}/results`)).status).toBe(200);
    const keys = (await (await a('/v1/keys')).json()) as { keys: { id: string; revoked_at: string | null }[] };
    expect(keys.keys.find((k) => k.id === aKey.id)?.revoked_at).toBeNull();
    expect((await client(api.url, aKey.token)('/v1/jobs')).status).toBe(200);
  });
});

describe('mail API: account B never reaches account A’s objects', () => {
  let db: TestDatabase;
  let mail: Mail;
  let aKey: { id: string; plaintext: string };
  let bKey: { plaintext: string };
  let bJwt: string;
  // A's private inbox, a message in it and a namespace: the routes by address or id take credentials for them.
  let aPrivate: string;
  let aMessage: string;
  let aNamespace: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    mail = await startMail(db, { env: { MAIL_JWT_SECRET: JWT_SECRET } });
    aKey = await keyOf(mail, 'account-a', { label: 'a-secret-label' });
    bKey = await keyOf(mail, 'account-b');
    bJwt = await tokenOf('account-b', 3);
    const inbox = await mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, label: 'a-inbox' }, headers: apiKey(aKey.plaintext) });
    expect(inbox.status).toBe(201);
    const hidden = await mail.call('/api/v1/inboxes', {
      body: { domain: DOMAIN, label: 'a-secret-label', private: true },
      headers: apiKey(aKey.plaintext),
    });
    aPrivate = ((await hidden.json()) as { address: string }).address;
    await mail.send({ from: 'shop@sender.test', to: aPrivate, subject: 'for account-a only', text: 'code 482913' });
    aMessage = (await db.pool.query('SELECT m.id FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE i.address = $1', [aPrivate]))
      .rows[0].id;
    const ns = await mail.call('/api/v1/namespaces', { body: { domain: DOMAIN, name: 'acct-a' }, headers: apiKey(aKey.plaintext) });
    aNamespace = ((await ns.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await mail?.close();
    await db?.pool.end();
  });

  it('every authenticated route with a path id answers 404 to B for A’s object, for every method, by JWT or API key', async () => {
    const ops = await operationsOf(mail.url);
    const objects: Record<string, string> = {
      'api-keys': aKey.id,
      inboxes: aPrivate,
      inbox: aPrivate,
      messages: aMessage,
      namespaces: aNamespace,
    };
    const paths = [...new Set(ops.filter((o) => o.authenticated && resourceOf(o.path)).map((o) => o.path))];
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/api-keys/{id}']));
    for (const path of paths) {
      const owner = objects[resourceOf(path)!];
      expect(owner, `no object of account A known for ${path}: add one to this test`).toBeDefined();
      for (const [how, headers] of [
        ['JWT', bearer(bJwt)],
        ['API key', apiKey(bKey.plaintext)],
      ] as const) {
        const send: Send = (method, p) =>
          fetch(`${mail.url}${p}`, {
            method,
            headers: { ...headers, ...(['POST', 'PUT', 'PATCH'].includes(method) ? { 'content-type': 'application/json' } : {}) },
            ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: '{}' } : {}),
          });
        await expectInvisible(`B by ${how}`, path, owner!, send, ['a-secret-label', 'account-a']);
      }
    }
  });

  it('B’s authenticated lists never hold A’s objects', async () => {
    const ops = await operationsOf(mail.url);
    const lists = ops.filter((o) => o.authenticated && o.method === 'GET' && !resourceOf(o.path));
    expect(lists.map((o) => o.path)).toEqual(expect.arrayContaining(['/api/v1/api-keys']));
    for (const op of lists) {
      for (const headers of [bearer(bJwt), apiKey(bKey.plaintext)]) {
        const res = await mail.call(op.path, { headers });
        expect(res.status, op.path).toBe(200);
        const text = await res.text();
        expect(text).not.toContain(aKey.id);
        expect(text).not.toContain('a-secret-label');
      }
    }
  });

  it('A’s key still works after B’s attempts, and A itself can see it (the id aimed at was real)', async () => {
    const res = await mail.call('/api/v1/api-keys', { headers: apiKey(aKey.plaintext) });
    expect(res.status).toBe(200);
    const keys = (await res.json()) as { id: string; is_active: boolean }[];
    expect(keys.find((k) => k.id === aKey.id)?.is_active).toBe(true);
  });
});
