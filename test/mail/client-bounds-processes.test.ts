// The per-client bounds are shared by every process: a client reaching two `domainkit mail-api` processes gets
// its bound once, not twice; and the places of a process that is killed while holding them lapse
// (CLIENT_LEASE_SECONDS) instead of holding the client's places for ever.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldCount } from '../../src/platform/leases/index.ts';
import { startCli, type RunningCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { openFrom, type OpenStream } from '../helpers/from-address.ts';
import { DOMAIN, startMail, type Mail } from '../helpers/mail.ts';

const BOUND = { MAIL_SSE_MAX_PER_CLIENT: '2', CLIENT_LEASE_SECONDS: '2' };
let db: TestDatabase;
let a: RunningCli;
let b: RunningCli;
let mail: Mail; // the SMTP receiver (and a third mail API) in this process
const open: OpenStream[] = [];

const apiEnv = () => ({ DATABASE_URL: db.url, MAIL_PORT: '0', HOST: '127.0.0.1', MAIL_DOMAINS: DOMAIN, ...BOUND });
const sse = (api: RunningCli, address: string) => `${api.addresses['mail-api']}/api/v1/sse/inbox/${encodeURIComponent(address)}`;

async function stream(from: string, url: string): Promise<OpenStream> {
  const s = await openFrom(from, url);
  open.push(s);
  if (s.status === 200) await s.until('event: connected');
  else await s.until('}');
  return s;
}

beforeAll(async () => {
  db = await createTestDatabase();
  mail = await startMail(db, { env: BOUND });
  [a, b] = await Promise.all([startCli(['mail-api'], apiEnv()), startCli(['mail-api'], apiEnv())]);
}, 120_000);
afterAll(async () => {
  for (const s of open) s.close();
  await Promise.all([a?.stop('SIGTERM'), b?.stop('SIGTERM')]);
  await mail?.close();
  await db?.pool.end();
});

describe('per-client bounds over several processes', () => {
  it('a client holding its bound over two mail-api processes is refused by both; another client is served', async () => {
    const address = await mail.inbox();
    expect((await stream('127.0.0.2', sse(a, address))).status).toBe(200);
    expect((await stream('127.0.0.2', sse(b, address))).status).toBe(200);
    for (const api of [a, b]) {
      const refused = await stream('127.0.0.2', sse(api, address));
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.text())).toMatchObject({ code: 'too_many_connections' });
    }
    expect(await heldCount(db.pool, 'mail.sse', '127.0.0.2')).toBe(2);

    const other = await stream('127.0.0.3', sse(b, address));
    expect(other.status).toBe(200);
    await mail.send({ from: 'shop@example.org', to: address, subject: 'over two processes', text: 'code 482913' });
    await other.until('over two processes');
  });

  it('the places of a killed process lapse, and its client can take them again elsewhere', async () => {
    const address = await mail.inbox();
    // 127.0.0.4 holds its two places, both on process A.
    expect((await stream('127.0.0.4', sse(a, address))).status).toBe(200);
    expect((await stream('127.0.0.4', sse(a, address))).status).toBe(200);
    expect((await stream('127.0.0.4', sse(b, address))).status).toBe(429);

    await a.stop('SIGKILL'); // no chance to give anything back
    await expect.poll(() => heldCount(db.pool, 'mail.sse', '127.0.0.4'), { timeout: 30_000 }).toBe(0);
    expect((await stream('127.0.0.4', sse(b, address))).status).toBe(200);
    expect((await stream('127.0.0.4', sse(b, address))).status).toBe(200);
    expect((await stream('127.0.0.4', sse(b, address))).status).toBe(429);
  }, 60_000);
});
