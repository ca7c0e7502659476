// Key material is shown once, at creation, and never again: no later response (reads, lists, error bodies) and
// no log line carries a jobs API token, a job's webhook secret, a mail API key, a mail JWT or a programmatic
// inbox's webhook secret; and API keys are stored only as hashes. Real sockets, real PostgreSQL, the apps'
// own logger at trace level with every line kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, bearer, capturingLogger, JWT_SECRET, tokenOf } from '../helpers/accounts.ts';
import { runCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../helpers/jobs.ts';
import { DOMAIN, startMail, type Mail } from '../helpers/mail.ts';

/** Every response body read by this file, with what produced it. */
const bodies: { what: string; text: string }[] = [];

async function read(what: string, res: Response): Promise<string> {
  const text = await res.text();
  bodies.push({ what: `${what} → ${res.status}`, text });
  // Headers are part of the answer too.
  for (const [name, value] of res.headers) bodies.push({ what: `${what} header ${name}`, text: value });
  return text;
}

/** The secrets' parts that identify them: the whole value, and its secret tail without the public prefix. */
function needles(secret: string): string[] {
  const tail = secret.replace(/^(dm_jobs_|tm_[a-z0-9]{8}_)/, '');
  return [...new Set([secret, tail])];
}

function expectNowhere(secret: string, where: { what: string; text: string }[], label: string): void {
  for (const needle of needles(secret)) {
    const hits = where.filter((w) => w.text.includes(needle)).map((w) => w.what);
    expect(hits, `${label} found in`).toEqual([]);
  }
}

describe('jobs API: tokens and webhook secrets', () => {
  let db: TestDatabase;
  let api: JobsApi;
  const captured = capturingLogger();
  let root: string;
  let madeByApi: { id: string; token: string };
  let madeByCli: { id: string; token: string };
  let job: { job_id: string; webhook_secret: string };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startJobsApi(db, { log: captured.log });
    root = await tokenFor(db, 'acme');
    const as = client(api.url, root);
    // Creation: the only responses allowed to carry the secrets (not collected).
    const key = await as('/v1/keys', { body: { name: 'reader', scopes: ['jobs:read', 'keys:read'] } });
    expect(key.status).toBe(201);
    madeByApi = (await key.json()) as typeof madeByApi;
    const created = await as('/v1/jobs', {
      body: { domains: ['example.com'], job_types: ['ping'], webhook_url: 'https://hooks.example.com/done' },
    });
    expect(created.status).toBe(201);
    job = (await created.json()) as typeof job;
    expect(job.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    const cli = await runCli(
      ['jobs', 'keys', 'create', '--tenant', 'acme', '--name', 'cli', '--scopes', 'jobs:read,keys:admin', '--json'],
      {
        DATABASE_URL: db.url,
        LOG_LEVEL: 'trace',
      },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const printed = JSON.parse(cli.stdout) as { id: string; token: string };
    madeByCli = printed;
    // The command prints the token once, on stdout; its log (stderr) never has it.
    expect(cli.stdout.split(printed.token).length - 1).toBe(1);
    bodies.push({ what: 'domainkit jobs keys create: stderr', text: cli.stderr });
  });
  afterAll(async () => {
    await api?.close();
    await db?.pool.end();
  });

  it('no later response carries a token or the webhook secret: reads, lists, CSV, errors, whatever the credential', async () => {
    const tokens = [madeByApi.token, madeByCli.token];
    for (const token of [root, ...tokens]) {
      const as = client(api.url, token);
      await read('GET /v1/keys', await as('/v1/keys'));
      await read('GET /v1/jobs', await as('/v1/jobs'));
      await read('GET /v1/jobs/{id}', await as(`/v1/jobs/${job.job_id}`));
      await read('GET /v1/jobs/{id}/results', await as(`/v1/jobs/${job.job_id}/results`));
      await read('GET /v1/jobs/{id}/results csv', await as(`/v1/jobs/${job.job_id}/results`, { headers: { accept: 'text/csv' } }));
      // The same token as X-API-Key.
      await read('GET /v1/jobs X-API-Key', await fetch(`${api.url}/v1/jobs`, { headers: apiKey(token) }));
    }
    // Error answers: a wrong scope, an unknown id, a bad body, a malformed or altered credential, two different keys.
    const reader = client(api.url, madeByApi.token);
    await read('POST /v1/keys without keys:admin', await reader('/v1/keys', { body: { name: 'x', scopes: ['jobs:read'] } }));
    await read('DELETE unknown job', await client(api.url, root)('/v1/jobs/01234567-89ab-7def-8123-456789abcdef', { method: 'DELETE' }));
    await read('POST /v1/jobs bad body', await client(api.url, root)('/v1/jobs', { body: { domains: [], job_types: ['nope'], extra: 1 } }));
    await read('POST /v1/jobs invalid JSON', await client(api.url, root)('/v1/jobs', { body: '{"domains": [' }));
    for (const token of tokens) {
      await read(
        'altered token',
        await fetch(`${api.url}/v1/jobs`, { headers: bearer(`${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`) }),
      );
      await read('token with junk', await fetch(`${api.url}/v1/jobs`, { headers: bearer(`${token}!`) }));
      await read('not a Bearer scheme', await fetch(`${api.url}/v1/jobs`, { headers: { authorization: `Token ${token}` } }));
      await read('two keys', await fetch(`${api.url}/v1/jobs`, { headers: { ...bearer(token), ...apiKey(root) } }));
    }
    // Revoked: the answer to the revoked key does not name it either.
    await read('DELETE /v1/keys/{id}', await client(api.url, root)(`/v1/keys/${madeByApi.id}`, { method: 'DELETE' }));
    await read('revoked key', await client(api.url, madeByApi.token)('/v1/jobs'));
    await read('GET /openapi.json', await fetch(`${api.url}/openapi.json`));

    expect(bodies.length).toBeGreaterThan(40);
    for (const token of [root, ...tokens]) expectNowhere(token, bodies, 'a jobs API token');
    expectNowhere(job.webhook_secret, bodies, "the job's webhook secret");
  });

  it('no log line carries a token or the webhook secret, though every request above was logged', () => {
    const lines = captured.lines.map((text, i) => ({ what: `log line ${i}: ${text.slice(0, 200)}`, text }));
    // The request lines are there (so the check looked at something).
    expect(lines.filter((l) => l.text.includes('"msg":"request"')).length).toBeGreaterThan(30);
    for (const token of [root, madeByApi.token, madeByCli.token]) expectNowhere(token, lines, 'a jobs API token');
    expectNowhere(job.webhook_secret, lines, "the job's webhook secret");
  });

  it('keys are stored only as hashes: no table holds a token', async () => {
    const dump = await tableDump(db);
    expect(dump.length).toBeGreaterThan(0);
    for (const token of [root, madeByApi.token, madeByCli.token]) expectNowhere(token, dump, 'a jobs API token in the database');
  });
});

describe('mail API: API keys, JWTs and inbox webhook secrets', () => {
  let db: TestDatabase;
  let mail: Mail;
  const captured = capturingLogger();
  let jwt: string;
  let key: { id: string; plaintext: string };
  let inbox: { id: string; address: string; webhook_secret: string };

  beforeAll(async () => {
    db = await createTestDatabase();
    mail = await startMail(db, { env: { MAIL_JWT_SECRET: JWT_SECRET, ALLOW_PRIVATE_NETWORK: 'false' }, log: captured.log });
    jwt = await tokenOf('acct-secrets', 3);
    const made = await mail.call('/api/v1/api-keys', { body: { label: 'ci' }, headers: bearer(jwt) });
    expect(made.status).toBe(201);
    key = (await made.json()) as typeof key;
    const created = await mail.call('/api/v1/inboxes', {
      body: { domain: DOMAIN, label: 'signup', webhook_url: 'https://hooks.example.com/mail' },
      headers: apiKey(key.plaintext),
    });
    expect(created.status).toBe(201);
    inbox = (await created.json()) as typeof inbox;
    expect(inbox.webhook_secret).toMatch(/^[0-9a-f]{48}$/);
    await mail.send({ from: 'shop@sender.test', to: inbox.address, subject: 'code', text: 'Your code is 482913' });
  });
  afterAll(async () => {
    await mail?.close();
    await db?.pool.end();
  });

  it('no later response carries the key, the JWT or the webhook secret', async () => {
    const address = encodeURIComponent(inbox.address);
    for (const credentials of [bearer(jwt), apiKey(key.plaintext)]) {
      await read('GET /api/v1/api-keys', await mail.call('/api/v1/api-keys', { headers: credentials }));
      await read('GET inbox', await mail.call(`/api/v1/inboxes/${address}`, { headers: credentials }));
    }
    await read('GET stats', await mail.call(`/api/v1/inboxes/${address}/stats`));
    const list = await read('GET messages', await mail.call(`/api/v1/inboxes/${address}/messages`));
    const [message] = JSON.parse(list) as { id: string }[];
    expect(message).toBeDefined();
    for (const path of ['', '/raw', '/otp', '/links'])
      await read(`GET message${path}`, await mail.call(`/api/v1/messages/${message!.id}${path}`));
    await read('GET domains', await mail.call('/api/v1/domains/'));
    // Errors: a second inbox at the same address, a bad body, a tampered JWT, a key sent as Bearer, both at once.
    await read(
      'POST inboxes conflict',
      await mail.call('/api/v1/inboxes', {
        body: { domain: DOMAIN, local_part: inbox.address.split('@')[0], webhook_url: 'https://hooks.example.com/mail' },
        headers: apiKey(key.plaintext),
      }),
    );
    await read(
      'POST api-keys bad body',
      await mail.call('/api/v1/api-keys', { body: { expires_in_days: 0, junk: true }, headers: apiKey(key.plaintext) }),
    );
    await read('tampered JWT', await mail.call('/api/v1/api-keys', { headers: bearer(`${jwt.slice(0, -2)}AA`) }));
    await read('JWT with junk', await mail.call('/api/v1/api-keys', { headers: bearer(`${jwt}.x`) }));
    await read('key as Bearer', await mail.call('/api/v1/api-keys', { headers: bearer(key.plaintext) }));
    await read('both credentials', await mail.call('/api/v1/api-keys', { headers: { ...bearer(jwt), ...apiKey(key.plaintext) } }));
    await read(
      'altered key',
      await mail.call('/api/v1/api-keys', { headers: apiKey(`${key.plaintext.slice(0, -1)}${key.plaintext.endsWith('0') ? '1' : '0'}`) }),
    );
    await read('low tier', await mail.call('/api/v1/api-keys', { body: {}, headers: bearer(await tokenOf('acct-secrets', 1)) }));
    // Revoked, then used.
    await read('DELETE api-key', await mail.call(`/api/v1/api-keys/${key.id}`, { method: 'DELETE', headers: bearer(jwt) }));
    await read('revoked key', await mail.call('/api/v1/api-keys', { headers: apiKey(key.plaintext) }));
    await read('GET /openapi.json', await mail.call('/openapi.json'));

    for (const secret of [key.plaintext, jwt]) expectNowhere(secret, bodies, 'a mail credential');
    // The JWT's signature alone is as good as the token for a forger who has the claims.
    expectNowhere(jwt.split('.')[2]!, bodies, "the JWT's signature");
    expectNowhere(inbox.webhook_secret, bodies, "the inbox's webhook secret");
  });

  it('no log line carries the key, the JWT or the webhook secret', () => {
    const lines = captured.lines.map((text, i) => ({ what: `log line ${i}: ${text.slice(0, 200)}`, text }));
    expect(lines.filter((l) => l.text.includes('"msg":"request"')).length).toBeGreaterThan(15);
    for (const secret of [key.plaintext, jwt, jwt.split('.')[2]!]) expectNowhere(secret, lines, 'a mail credential');
    expectNowhere(inbox.webhook_secret, lines, "the inbox's webhook secret");
  });

  it('API keys are stored only as hashes (webhook secrets are kept: HMAC needs them)', async () => {
    const dump = await tableDump(db);
    expectNowhere(key.plaintext, dump, 'a mail API key in the database');
    expectNowhere(jwt, dump, 'a JWT in the database');
  });
});

/** Every row of every table of the application's schema, as JSON text. */
async function tableDump(db: TestDatabase): Promise<{ what: string; text: string }[]> {
  const { rows: tables } = await db.pool.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const out: { what: string; text: string }[] = [];
  for (const t of tables) {
    const { rows } = await db.pool.query<{ row: string }>(`SELECT row_to_json(x)::text AS row FROM "${t.schema}"."${t.name}" x`);
    for (const r of rows) out.push({ what: `${t.schema}.${t.name}`, text: r.row });
  }
  return out;
}
