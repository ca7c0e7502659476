// The per-client leases against a real PostgreSQL, with two holders (two processes' worth: each its own pool
// and heartbeat): takes racing for the last places never give more than the bound over both, a bound of 0
// counts nothing, and a holder that stops beating (its process gone) stops holding anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../../src/platform/db/index.ts';
import { heldCount, startClientLeases, type ClientLeases } from '../../../src/platform/leases/index.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

const log = createLogger({ level: 'silent' });
let db: TestDatabase;
const pools: Pool[] = [];

async function holder(leaseSeconds = 30): Promise<{ leases: ClientLeases; pool: Pool }> {
  const pool = createPool(db.url, log);
  pools.push(pool);
  return { leases: await startClientLeases({ pool, log, leaseSeconds }), pool };
}

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await Promise.allSettled(pools.map((p) => p.end()));
  await db.pool.end();
});

describe('client leases', () => {
  it('grants exactly the bound to takes racing over two holders, and a given-back place can be taken again', async () => {
    const [a, b] = [await holder(), await holder()];
    const takes = Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).leases.take('test.kind', '192.0.2.1', 25));
    const leases = await Promise.all(takes);
    const granted = leases.filter((l) => l !== undefined);
    expect(granted).toHaveLength(25);
    expect(await heldCount(db.pool, 'test.kind', '192.0.2.1')).toBe(25);
    // Another client and another kind are counted apart.
    expect(await a.leases.take('test.kind', '192.0.2.2', 25)).toBeDefined();
    expect(await a.leases.take('test.other', '192.0.2.1', 25)).toBeDefined();

    granted[0]!.release();
    granted[0]!.release(); // once, however often
    await expect.poll(() => heldCount(db.pool, 'test.kind', '192.0.2.1')).toBe(24);
    expect(await b.leases.take('test.kind', '192.0.2.1', 25)).toBeDefined();
    expect(await a.leases.take('test.kind', '192.0.2.1', 25)).toBeUndefined();
    await Promise.all([a.leases.stop(), b.leases.stop()]);
    expect(await heldCount(db.pool, 'test.kind', '192.0.2.1')).toBe(0); // a stopped holder holds nothing
  });

  it('asks for takes of one client that arrive together in few statements, granting them in arrival order', async () => {
    const { leases } = await holder();
    const statements: string[] = [];
    const pool = pools.at(-1)!;
    const query = pool.query.bind(pool);
    pool.query = ((...args: Parameters<Pool['query']>) => {
      const [config] = args as unknown as [{ name?: string }];
      if (config?.name === 'platform.leases.take') statements.push(config.name);
      return query(...args);
    }) as Pool['query'];
    const granted = await Promise.all(Array.from({ length: 30 }, () => leases.take('test.batch', '192.0.2.9', 10)));
    expect(granted.map((l) => l !== undefined)).toEqual([...Array(10).fill(true), ...Array(20).fill(false)]);
    expect(await heldCount(db.pool, 'test.batch', '192.0.2.9')).toBe(10);
    // The first take goes alone; the 29 that came while it was out go together.
    expect(statements.length).toBeLessThanOrEqual(3);
    await leases.stop();
  });

  it('counts nothing for a bound of 0', async () => {
    const { leases } = await holder();
    for (let i = 0; i < 5; i++) expect(await leases.take('test.off', '192.0.2.3', 0)).toBeDefined();
    expect(await heldCount(db.pool, 'test.off', '192.0.2.3')).toBe(0);
    await leases.stop();
  });

  it('lets the places of a holder whose heartbeat stopped lapse, and sweeps their rows', async () => {
    const dead = await holder(2);
    const alive = await holder(2);
    for (let i = 0; i < 3; i++) expect(await dead.leases.take('test.lapse', '192.0.2.4', 3)).toBeDefined();
    expect(await alive.leases.take('test.lapse', '192.0.2.4', 3)).toBeUndefined();
    // Its process "dies": no more heartbeats, nothing given back.
    await dead.pool.end();
    await expect.poll(() => heldCount(db.pool, 'test.lapse', '192.0.2.4'), { timeout: 20_000 }).toBe(0);
    expect(await alive.leases.take('test.lapse', '192.0.2.4', 3)).toBeDefined();
    // The heartbeat of the live holder sweeps rows nobody live holds anything in.
    const rows = async () => (await db.pool.query(`SELECT count(*)::int AS n FROM client_leases WHERE client = '192.0.2.4'`)).rows[0].n;
    expect(await rows()).toBe(1);
    await alive.leases.stop(); // the last holder of the row: it now holds nothing anyone counts
    const sweeper = await holder(2);
    await expect.poll(rows, { timeout: 20_000 }).toBe(0);
    await sweeper.leases.stop();
  }, 60_000);
});
