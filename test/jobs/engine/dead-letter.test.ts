// An entry that fails every time (here: its result cannot be written) is retried, then dead-lettered; its
// tasks still get error rows and the job still ends, with its callback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';

let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let receiver: Receiver;
let worker: RunningCli;

beforeAll(async () => {
  db = await createTestDatabase();
  // A poisoned task: storing a success for it fails, as a bug or a broken row would.
  await db.pool.query(`
    CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.domain = 'poison.example' AND NEW.state = 'ok' THEN RAISE EXCEPTION 'poisoned row'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_poison BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
  api = await startJobsApi(db, { env: { ALLOW_PRIVATE_NETWORK: 'true' } });
  sites = await startSites();
  receiver = await startReceiver(() => 200);
  worker = await startWorker(
    db.url,
    sites,
    { '*.example': '127.0.0.1' },
    { TEST_RETRY_DELAY_SECONDS: '1', TEST_SUPERVISE_SECONDS: '1', LOG_LEVEL: 'fatal' },
  );
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all([api.close(), sites.close(), receiver.close()]);
  await db.pool.end();
});

describe('the dead-letter path', () => {
  it('stores internal_error rows for the poisoned entry and ends the job once', { timeout: 60_000 }, async () => {
    const call = client(api.url, await tokenFor(db, 'acme'));
    const body = {
      domains: ['fine.example', 'poison.example', 'also-fine.example'],
      job_types: ['ping'],
      webhook_url: `${receiver.url}/cb`,
    };
    const { job_id: id } = (await (await call('/v1/jobs', { body })).json()) as { job_id: string };
    await expect
      .poll(async () => ((await (await call(`/v1/jobs/${id}`)).json()) as { status: string }).status, { timeout: 45_000, interval: 250 })
      .toBe('completed');
    const { results } = (await (await call(`/v1/jobs/${id}/results`)).json()) as { results: { domain: string; status: string }[] };
    const poison = results.find((r) => r.domain === 'poison.example')!;
    expect(poison).toMatchObject({ status: 'error', error: { code: 'internal_error' }, reachable: null });
    expect(
      results
        .filter((r) => r.status === 'ok')
        .map((r) => r.domain)
        .sort(),
    ).toEqual(['also-fine.example', 'fine.example']);
    // Tried 1 + 3 times before the dead letter.
    expect(sites.requests.filter((r) => r.host === 'poison.example')).toHaveLength(4);
    // Ended once: one callback was enqueued (in the transaction that ended the job), and it arrived once.
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM deliveries WHERE subject = $1', [id]);
    expect(rows[0].n).toBe(1);
    await receiver.waitFor('/cb', 1);
    await expect
      .poll(async () => (await db.pool.query('SELECT state FROM deliveries WHERE subject = $1', [id])).rows[0].state)
      .toBe('delivered');
    expect(receiver.forPath('/cb')).toHaveLength(1);
  });
});
