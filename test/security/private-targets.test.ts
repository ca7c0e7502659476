// Webhooks and ping never reach private targets while ALLOW_PRIVATE_NETWORK is false: a webhook_url naming a
// loopback, private, link-local (metadata) or IPv4-mapped address is refused at creation; a host name that
// resolves to one passes creation but its deliveries are dropped before any packet reaches the local receiver;
// ping refuses the same targets. A local receiver stands in for the internal service an attacker would aim at,
// and counts every request that reaches it.
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pingAdapter } from '../../src/jobs/index.ts';
import { allowEverything, createOutbound, policyFor } from '../../src/platform/net/index.ts';
import { bearer, JWT_SECRET, tokenOf } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { problemOf } from '../helpers/http.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../helpers/jobs.ts';
import { DOMAIN, startMail, type Mail } from '../helpers/mail.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

/** Names an attacker controls, resolving to internal addresses (as DNS rebinding or a plain A record would). */
const REBIND: Record<string, { address: string; family: 4 | 6 }> = {
  'loopback.rebind.test': { address: '127.0.0.1', family: 4 },
  'loopback6.rebind.test': { address: '::1', family: 6 },
  'mapped.rebind.test': { address: '::ffff:127.0.0.1', family: 6 },
  'metadata.rebind.test': { address: '169.254.169.254', family: 4 },
  'private.rebind.test': { address: '10.0.0.1', family: 4 },
  'unspecified.rebind.test': { address: '0.0.0.0', family: 4 },
  // Fully qualified localhost: not every resolver answers it, those that do answer loopback.
  'localhost.': { address: '127.0.0.1', family: 4 },
};

/**
 * A resolver with the names above, and localhost from the system resolver. Every other name does not resolve:
 * the workers below run the jobs and callbacks the tests make (ping of example.com, a callback to a public
 * name), and nothing of that may leave the machine.
 */
const lookup = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
  const cb = typeof options === 'function' ? (options as typeof callback) : callback;
  const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
  const found = REBIND[hostname];
  if (hostname === 'localhost') {
    void import('node:dns').then((dns) => (dns.lookup as unknown as (...a: unknown[]) => void)(hostname, options, callback));
    return;
  }
  if (!found) {
    const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    process.nextTick(() => cb(err));
    return;
  }
  if (all) cb(null, [found]);
  else cb(null, found.address, found.family);
}) as unknown as LookupFunction;

/** Names that may pass creation (a name is checked on its address at delivery): refused there or dropped later. */
const NAMES = Object.keys(REBIND);

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver(() => 200);
});
afterAll(async () => {
  await receiver?.close();
});

/** Literal private targets on the receiver's port: creation refuses each of them. */
function literalTargets(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/hook`,
    `http://127.1:${port}/hook`,
    `http://2130706433:${port}/hook`, // 127.0.0.1 as one decimal number
    `http://0x7f.0.0.1:${port}/hook`,
    `http://0.0.0.0:${port}/hook`,
    `http://10.0.0.1/hook`,
    `http://172.16.0.1/hook`,
    `http://192.168.1.1/hook`,
    `http://100.64.0.1/hook`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://[::1]:${port}/hook`,
    `http://[::ffff:127.0.0.1]:${port}/hook`,
    `http://[::ffff:7f00:1]:${port}/hook`,
    `http://[::ffff:169.254.169.254]/latest/meta-data/`,
    `http://[64:ff9b::7f00:1]:${port}/hook`,
    `http://[fd00::1]/hook`,
    `http://[fe80::1]/hook`,
    `http://[::]:${port}/hook`,
    `http://localhost:${port}/hook`,
    `http://LOCALHOST:${port}/hook`,
    `http://api.localhost:${port}/hook`,
    `https://user:pass@127.0.0.1:${port}/hook`,
  ];
}

describe('jobs API: webhook_url', () => {
  let db: TestDatabase;
  let api: JobsApi;

  beforeAll(async () => {
    db = await createTestDatabase();
    // With the worker, as `domainkit start` runs both: the engine runs each job and sends its callback.
    api = await startJobsApi(db, { worker: true, overrides: { lookup }, env: { JOBS_WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms' } });
  });
  afterAll(async () => {
    await api?.close();
    await db?.pool.end();
  });

  it('refuses a loopback, private, link-local, metadata or IPv4-mapped target at creation (400 on /webhook_url)', async () => {
    const as = client(api.url, await tokenFor(db, 'ssrf'));
    const port = new URL(receiver.url).port;
    for (const url of literalTargets(Number(port))) {
      const res = await as('/v1/jobs', { body: { domains: ['example.com'], job_types: ['ping'], webhook_url: url } });
      expect(res.status, url).toBe(400);
      const problem = await problemOf(res);
      expect(problem.code, url).toBe('validation_failed');
      expect(JSON.stringify(problem.errors), url).toContain('/webhook_url');
    }
    // Control: a public target is taken.
    const ok = await as('/v1/jobs', {
      body: { domains: ['example.com'], job_types: ['ping'], webhook_url: 'https://hooks.example.com/x' },
    });
    expect(ok.status).toBe(201);
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses IP literals and single-label names such as localhost as domains (ping would go there)', async () => {
    const as = client(api.url, await tokenFor(db, 'ssrf'));
    for (const domain of ['127.0.0.1', 'localhost', '[::1]', '::1', '169.254.169.254', '2130706433', '10.0.0.1:80', 'http://127.0.0.1/']) {
      const res = await as('/v1/jobs', { body: { domains: [domain], job_types: ['ping'] } });
      expect(res.status, domain).toBe(400);
      expect(JSON.stringify((await problemOf(res)).errors), domain).toContain('/domains/0');
    }
  });

  it('a host name that resolves to an internal address passes creation, but its callback is dropped without reaching it', async () => {
    const as = client(api.url, await tokenFor(db, 'ssrf'));
    const port = new URL(receiver.url).port;
    const jobIds: string[] = [];
    for (const name of NAMES) {
      const path = `/jobs/${name}`;
      const url = `http://${name}:${port}${path}`;
      const res = await as('/v1/jobs', { body: { domains: ['example.com'], job_types: ['ping'], webhook_url: url } });
      if (res.status === 400 && !name.endsWith('.rebind.test')) continue; // refused at creation: as good
      expect(res.status, url).toBe(201);
      jobIds.push(((await res.json()) as { job_id: string }).job_id);
    }
    // The engine enqueues each job's callback when the job ends (src/jobs/callback.ts), to the stored URL.
    const ids = await vi.waitFor(
      async () => {
        const { rows } = await db.pool.query<{ id: string }>(`SELECT id FROM deliveries WHERE service = 'jobs' AND subject = ANY($1)`, [
          jobIds,
        ]);
        if (rows.length !== jobIds.length) throw new Error(`${rows.length} of ${jobIds.length} callbacks enqueued`);
        return rows.map((r) => r.id);
      },
      { timeout: 30_000, interval: 50 },
    );
    const settledRows = await settled(db, ids);
    for (const row of settledRows) {
      expect(row.state, JSON.stringify(row)).toBe('dropped');
      expect(row.attempts).toEqual([{ attempt: 1, error: 'refused_address', outcome: 'dropped', status_code: null }]);
    }
    expect(receiver.received).toHaveLength(0);
  });
});

describe('mail API: a programmatic inbox’s webhook_url', () => {
  let db: TestDatabase;
  let mail: Mail;

  beforeAll(async () => {
    db = await createTestDatabase();
    // With the worker, as `domainkit start` runs them: it sends the webhooks of the mail the tests send.
    mail = await startMail(db, {
      worker: true,
      overrides: { lookup },
      env: { MAIL_JWT_SECRET: JWT_SECRET, ALLOW_PRIVATE_NETWORK: 'false', MAIL_WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms' },
    });
  });
  afterAll(async () => {
    await mail?.close();
    await db?.pool.end();
  });

  it('refuses a loopback, private, link-local, metadata or IPv4-mapped target at creation', async () => {
    const headers = bearer(await tokenOf('acct-ssrf', 3));
    for (const url of literalTargets(Number(new URL(receiver.url).port))) {
      const res = await mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, webhook_url: url }, headers });
      expect(res.status, url).toBe(400);
      const problem = await problemOf(res);
      expect(problem.code, url).toBe('validation_failed');
      expect(JSON.stringify(problem.errors), url).toContain('/webhook_url');
    }
    const ok = await mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, webhook_url: 'https://hooks.example.com/x' }, headers });
    expect(ok.status).toBe(201);
    expect(receiver.received).toHaveLength(0);
  });

  it('a host name that resolves to an internal address passes creation; mail to the inbox stores, the webhook never reaches it', async () => {
    const headers = bearer(await tokenOf('acct-ssrf', 3));
    const port = new URL(receiver.url).port;
    const addresses: string[] = [];
    for (const name of NAMES) {
      const res = await mail.call('/api/v1/inboxes', {
        body: { domain: DOMAIN, webhook_url: `http://${name}:${port}/mail/${name}` },
        headers,
      });
      if (res.status === 400 && !name.endsWith('.rebind.test')) continue; // refused at creation: as good
      expect(res.status, name).toBe(201);
      const address = ((await res.json()) as { address: string }).address;
      addresses.push(address);
      const sent = await mail.send({ from: 'a@sender.test', to: address, subject: 'hi', text: 'code 123456' });
      expect(sent.response).toMatch(/^250/);
    }
    const { rows } = await db.pool.query<{ id: string }>(`SELECT id FROM deliveries WHERE service = 'mail' AND subject = ANY($1)`, [
      addresses,
    ]);
    expect(rows).toHaveLength(addresses.length);
    for (const row of await settled(
      db,
      rows.map((r) => r.id),
    )) {
      expect(row.state, JSON.stringify(row)).toBe('dropped');
      expect(row.attempts).toEqual([{ attempt: 1, error: 'refused_address', outcome: 'dropped', status_code: null }]);
    }
    expect(receiver.received).toHaveLength(0);
  });
});

describe('the ping source', () => {
  const context = { signal: new AbortController().signal, permit: async () => {} };

  it('refuses every internal target, by name or through a resolver that points at one; nothing reaches the receiver', async () => {
    const port = new URL(receiver.url).port;
    const outbound = createOutbound({ policy: policyFor(false), lookup });
    try {
      const ping = pingAdapter({
        outbound,
        lookup,
        urls: (d) => [`https://${d}:${port}/`, `http://${d}:${port}/`],
        userAgent: 'domainkit-test',
      });
      const domains = [...NAMES, 'localhost'];
      const outcomes = await ping.fetch(domains, context);
      outcomes.forEach((outcome, i) => {
        expect(outcome.ok, domains[i]).toBe(true);
        if (!outcome.ok) return;
        expect(outcome.columns, domains[i]).toEqual({ reachable: false, status_code: null, response_ms: null });
        const attempts = (outcome.raw as { attempts: { error?: string }[] }).attempts;
        expect(
          attempts.map((a) => a.error),
          domains[i],
        ).toEqual(['refused_address', 'refused_address']);
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await outbound.close();
    }
  });

  it('(control) the same setup with private networks allowed does reach the receiver, so the refusal above is the policy’s', async () => {
    const port = new URL(receiver.url).port;
    const outbound = createOutbound({ policy: allowEverything, lookup });
    try {
      const ping = pingAdapter({ outbound, lookup, urls: (d) => [`http://${d}:${port}/control`], userAgent: 'domainkit-test' });
      const [outcome] = await ping.fetch(['loopback.rebind.test'], context);
      expect(outcome).toMatchObject({ ok: true, columns: { reachable: true, status_code: 200 } });
      expect(receiver.forPath('/control')).toHaveLength(1);
    } finally {
      receiver.received.length = 0;
      await outbound.close();
    }
  });

  it('does not follow a redirect from an allowed target to an internal one', async () => {
    // Only the first connection is allowed (it stands for a public site); the site redirects to a name that
    // resolves to the receiver on 127.0.0.1, and that second connection must be refused.
    const port = new URL(receiver.url).port;
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) =>
      res.writeHead(302, { location: `http://loopback.rebind.test:${port}/after-redirect` }).end(),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const hopPort = (server.address() as { port: number }).port;
    const checked: string[] = [];
    const strict = policyFor(false);
    // The first check (the connection to the hop) passes; every later one is the strict policy's.
    const policy = (address: string) => {
      checked.push(address);
      return checked.length === 1 || strict(address);
    };
    const outbound = createOutbound({ policy, lookup });
    try {
      const ping = pingAdapter({ outbound, lookup, urls: () => [`http://127.0.0.1:${hopPort}/start`], userAgent: 'domainkit-test' });
      const [outcome] = await ping.fetch(['loopback.rebind.test'], context);
      expect(outcome!.ok).toBe(true);
      const raw = (outcome as { raw: { attempts: { error?: string }[] } }).raw;
      expect(raw.attempts.map((a) => a.error)).toEqual(['refused_address']);
      expect(checked).toEqual(['127.0.0.1', '127.0.0.1']);
      expect(receiver.forPath('/after-redirect')).toHaveLength(0);
    } finally {
      await outbound.close();
      await new Promise((r) => server.close(r));
    }
  });
});

/** Waits until every delivery has left `pending`; its state and attempts. */
async function settled(db: TestDatabase, ids: string[], timeoutMs = 20_000) {
  return vi.waitFor(
    async () => {
      const { rows } = await db.pool.query<{ id: string; state: string; attempts: unknown[] }>(
        `SELECT d.id, d.state, COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'error', a.error, 'outcome', a.outcome, 'status_code', a.status_code) ORDER BY a.attempt)
           FROM delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS attempts
         FROM deliveries d WHERE d.id = ANY($1)`,
        [ids],
      );
      if (rows.length !== ids.length || rows.some((r) => r.state === 'pending')) {
        throw new Error(`deliveries still pending: ${JSON.stringify(rows)}`);
      }
      return rows;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}
