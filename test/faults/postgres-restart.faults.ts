// PostgreSQL restarted (immediate mode: no clean shutdown, crash recovery on start) while the mail API, the
// SMTP receiver, the jobs API and a worker — each its own process — take mail and jobs. Nothing acknowledged
// may be lost or doubled: every message answered 250 is stored once, every job answered 201 ends with one
// finished task per (domain, source). Readiness must show the outage, and service must come back by itself.
// The phases are counted, not timed: so much load before the restart, so much after it, whatever the speed.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { Fake } from '../../src/dev/fakes/server.ts';
import { startSeokicksFake } from '../../src/dev/fakes/seokicks.ts';
import { acquireEmbedded, createPool, type EmbeddedServer, type Pool } from '../../src/platform/db/index.ts';
import { createLogger } from '../../src/platform/log.ts';
import { runCli, startCli, type RunningCli } from '../helpers/cli.ts';
import { SmtpClient } from '../helpers/smtp.ts';
import { report } from './report.ts';

const DOMAIN = 'faults.test';
const log = createLogger({ level: 'silent' });
let dataDir: string;
let server: EmbeddedServer;
let pool: Pool;
let seokicks: Fake;
const processes: RunningCli[] = [];
let urls: { mail: string; jobs: string; smtpPort: number };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'domainkit-faults-'));
  await chmod(dataDir, 0o755);
  server = await acquireEmbedded({ dataDir, log });
  pool = createPool(server.url(), log);
  seokicks = await startSeokicksFake({ apiKey: 'sk', latencyMs: 50 });
  const env = { DATABASE_URL: server.url(), HOST: '127.0.0.1', MAIL_DOMAINS: DOMAIN, JOBS_PORT: '0', MAIL_PORT: '0', SMTP_PORT: '0' };
  // One after the other: the first runs the migrations.
  for (const [role, extra] of [
    ['mail-api', {}],
    ['smtp', {}],
    ['jobs-api', {}],
    ['worker', { SEOKICKS_API_KEY: 'sk', SEOKICKS_BASE_URL: seokicks.url }],
  ] as const) {
    processes.push(await startCli([role], { ...env, ...extra }));
  }
  urls = {
    mail: processes[0]!.addresses['mail-api']!,
    jobs: processes[2]!.addresses['jobs-api']!,
    smtpPort: Number(new URL(processes[1]!.addresses.smtp!).port),
  };
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop('SIGTERM')));
  await pool?.end();
  await seokicks?.close();
  await server?.release();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('loses and doubles nothing acknowledged when PostgreSQL restarts under mail and job load', async () => {
  const made = await runCli(
    ['jobs', 'keys', 'create', '--tenant', 'faults', '--name', 'load', '--scopes', 'jobs:create,jobs:read', '--json'],
    {
      DATABASE_URL: server.url(),
    },
  );
  expect(made.code, made.stderr).toBe(0);
  const token = (JSON.parse(made.stdout) as { token: string }).token;
  const generated = await fetch(`${urls.mail}/api/v1/inboxes/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const address = ((await generated.json()) as { address: string }).address;

  let running = true;
  const acked = new Set<string>();
  const jobs: string[] = [];
  let refused = 0;
  const readiness: { mail: number; jobs: number }[] = [];

  const mailLoad = async (lane: number) => {
    let client: SmtpClient | undefined;
    for (let n = 0; running; n++) {
      const tokenOf = `lane${lane}-${n}`;
      try {
        client ??= await SmtpClient.connect(urls.smtpPort);
        const reply = await client.send(
          { from: 'load@sender.test', to: [address] },
          Buffer.from(`Subject: ${tokenOf}\r\n\r\nbody of ${tokenOf}\r\n`),
        );
        if (reply.code === 250) acked.add(tokenOf);
        else refused++;
      } catch {
        refused++; // the connection failed: the message was not acknowledged
        client = undefined;
        await sleep(100);
      }
    }
    await client?.quit().catch(() => undefined);
  };
  const jobLoad = async () => {
    for (let n = 0; running; n++) {
      try {
        const res = await fetch(`${urls.jobs}/v1/jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ domains: Array.from({ length: 5 }, (_, i) => `j${n}-${i}.example`), job_types: ['seokicks'] }),
        });
        if (res.status === 201) jobs.push(((await res.json()) as { job_id: string }).job_id);
        else refused++;
      } catch {
        refused++;
      }
      await sleep(200);
    }
  };
  const status = (url: string) =>
    fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
  const readinessProbe = async () => {
    while (running) {
      const [mail, jobsReady] = await Promise.all([status(urls.mail), status(urls.jobs)]);
      readiness.push({ mail, jobs: jobsReady });
      await sleep(100);
    }
  };
  const load = Promise.all([mailLoad(1), mailLoad(2), jobLoad(), readinessProbe()]);

  // Under load before the restart: so many messages and jobs acknowledged (the wait only bounds a stalled machine).
  const LOAD = { messages: 1000, jobs: 10 };
  const loaded = (messages: number, jobsAccepted: number) => messages >= LOAD.messages && jobsAccepted >= LOAD.jobs;
  await expect
    .poll(() => loaded(acked.size, jobs.length), { timeout: 60_000, interval: 50, message: 'load before the restart' })
    .toBe(true);
  const ackedBefore = acked.size;
  const jobsBefore = jobs.length;
  const probedBefore = readiness.length;
  const restartAt = performance.now();
  await server.restart('immediate');
  const restartedAt = performance.now();
  // Back to normal: readiness 200 on both APIs and a new message acknowledged after the restart.
  const ackedAtRestart = acked.size;
  await vi.waitFor(
    () => {
      const last = readiness.at(-1);
      if (!(last?.mail === 200 && last.jobs === 200 && acked.size > ackedAtRestart)) {
        throw new Error('service did not come back within 60 s');
      }
    },
    { timeout: 60_000, interval: 50 },
  );
  const recoverySeconds = (performance.now() - restartAt) / 1000;
  // The probes from the restart until service was back: the outage must show in them.
  const outage = readiness.slice(probedBefore);
  // Under load again after it: as many more messages and jobs acknowledged.
  const ackedBack = acked.size;
  const jobsBack = jobs.length;
  await expect
    .poll(() => loaded(acked.size - ackedBack, jobs.length - jobsBack), {
      timeout: 60_000,
      interval: 50,
      message: 'load after the restart',
    })
    .toBe(true);
  running = false;
  await load;

  // Every job ends (the worker may retry what the restart interrupted).
  const openJobs = async () =>
    (
      await pool.query<{ open: number }>(
        `SELECT count(*)::int AS open FROM jobs WHERE id = ANY($1::uuid[]) AND status NOT IN ('completed', 'failed')`,
        [jobs],
      )
    ).rows[0]!.open;
  await vi.waitFor(
    async () => {
      const open = await openJobs();
      if (open === 0) return;
      const { rows: states } = await pool.query(
        `SELECT t.state, t.attempts, count(*)::int AS n FROM tasks t JOIN jobs j ON j.id = t.job_id
          WHERE j.id = ANY($1::uuid[]) AND j.status NOT IN ('completed', 'failed') GROUP BY 1, 2`,
        [jobs],
      );
      throw new Error(
        `${open} jobs still open 90 s after the load; their tasks: ${JSON.stringify(states)}\n` +
          `worker output (end): ${processes[3]!.output().slice(-3000)}`,
      );
    },
    { timeout: 90_000, interval: 250 },
  );

  const { rows: stored } = await pool.query<{ subject: string; n: number }>(
    `SELECT subject, count(*)::int AS n FROM messages GROUP BY subject`,
  );
  const storedCount = new Map(stored.map((r) => [r.subject, r.n]));
  const lostMail = [...acked].filter((t) => !storedCount.has(t));
  const doubledMail = [...acked].filter((t) => (storedCount.get(t) ?? 0) > 1);
  const { rows: tasks } = await pool.query<{ job_id: string; domain: string; source: string; n: number; done: number }>(
    `SELECT job_id, domain, source, count(*)::int AS n, count(*) FILTER (WHERE state IN ('ok', 'error'))::int AS done
       FROM tasks WHERE job_id = ANY($1::uuid[]) GROUP BY 1, 2, 3`,
    [jobs],
  );
  const lostTasks = jobs.length * 5 - tasks.filter((t) => t.done >= 1).length;
  const doubledTasks = tasks.filter((t) => t.n > 1).length;
  const sawOutage = outage.some((r) => r.mail === 503 || r.jobs === 503);

  report({
    scenario: 'postgres-restart',
    load: `2 SMTP connections sending without pause, a 5-domain seokicks job every 200 ms; ${acked.size} messages acknowledged (${ackedBefore} before the restart), ${jobs.length} jobs accepted (${jobsBefore} before), ${refused} refused (451 or connection errors, never acknowledged)`,
    injected: 'PostgreSQL restarted in immediate mode (crash recovery), processes untouched',
    lost: lostMail.length + lostTasks,
    duplicated: doubledMail.length + doubledTasks,
    recoverySeconds,
    details: {
      restartSeconds: (restartedAt - restartAt) / 1000,
      readinessShowedOutage: sawOutage,
      lostMail,
      doubledMail,
      lostTasks,
      doubledTasks,
    },
  });
  expect(acked.size).toBeGreaterThan(ackedAtRestart);
  expect(jobs.length).toBeGreaterThan(0);
  expect({ lostMail, doubledMail, lostTasks, doubledTasks }).toEqual({ lostMail: [], doubledMail: [], lostTasks: 0, doubledTasks: 0 });
  expect(sawOutage).toBe(true);
});
