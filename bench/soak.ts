// npm run soak — ten minutes (SOAK_SECONDS) of mixed traffic against every role as its own process over a
// durable embedded PostgreSQL: mail over SMTP, inbox and message reads, SSE clients coming and going, jobs
// with callbacks. Every 10 s it samples each process's RSS and open file descriptors. Passes when, after the
// warm-up (the first fifth), RSS grew less than 10 % (median of the last quarter against the median of the
// second) and no process's descriptors kept growing.
import { execFile } from 'node:child_process';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startSeokicksFake } from '../src/dev/fakes/seokicks.ts';
import { freePort, scratchDatabase, writeResult } from './lib.ts';
import { benchProcesses, generateInbox, waitForHttp } from './processes.ts';
import { runSmtpLoad, waitForSmtp } from './smtp-load.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SAMPLE_MS = Math.min(10_000, (SECONDS * 1000) / 12);
const HOST = '127.0.0.1';
const DOMAIN = 'soak.test';
const TARGET_RSS_GROWTH = 0.1;
const run = promisify(execFile);

let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
let failed = false;
const seokicks = await startSeokicksFake({ apiKey: 'sk', latencyMs: 20 });
const hooks = createServer((req, res) => {
  req.resume();
  res.writeHead(200).end();
});
await new Promise<void>((r) => hooks.listen(0, HOST, r));
const processes = benchProcesses('soak', async () => {
  await seokicks.close();
  await new Promise((r) => hooks.close(r));
  await db?.release();
});

interface Sample {
  at: number;
  rssMb: Record<string, number>;
  fds: Record<string, number>;
}

function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(match?.[1] ?? 0) / 102.4) / 10;
}

try {
  db = await scratchDatabase();
  const [mailPort, smtpPort, jobsPort] = [await freePort(), await freePort(), await freePort()];
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    HOST,
    MAIL_DOMAINS: DOMAIN,
    LOG_LEVEL: 'warn',
    MAIL_PORT: String(mailPort),
    SMTP_PORT: String(smtpPort),
    JOBS_PORT: String(jobsPort),
    ALLOW_PRIVATE_NETWORK: 'true',
    SEOKICKS_API_KEY: 'sk',
    SEOKICKS_BASE_URL: seokicks.url,
  };
  const roles = ['mail-api', 'smtp', 'jobs-api', 'worker'] as const;
  const pids: Record<string, number> = {};
  for (const role of roles) pids[role] = processes.start(role, [cli, role], env).pid!;
  const mail = `http://${HOST}:${mailPort}`;
  const jobs = `http://${HOST}:${jobsPort}`;
  await Promise.all([waitForHttp(`${mail}/readyz`), waitForHttp(`${jobs}/readyz`), waitForSmtp(HOST, smtpPort)]);

  const made = await run(
    process.execPath,
    [cli, 'jobs', 'keys', 'create', '--tenant', 'soak', '--name', 'k', '--scopes', 'jobs:create,jobs:read', '--json'],
    { env },
  );
  const token = (JSON.parse(made.stdout) as { token: string }).token;

  const inboxes: string[] = [];
  for (let i = 0; i < 20; i++) inboxes.push(await generateInbox(mail, DOMAIN));
  const hookUrl = `http://${HOST}:${(hooks.address() as AddressInfo).port}/hook`;

  let running = true;
  const counts = { smtp: 0, reads: 0, sse: 0, jobs: 0, errors: 0 };
  const endAt = Date.now() + SECONDS * 1000;
  let turn = 0;
  const loops = [
    // Mail: bursts of 50 messages over 4 connections.
    (async () => {
      while (running) {
        const r = await runSmtpLoad({
          host: HOST,
          port: smtpPort,
          connections: 4,
          messages: 50,
          recipients: () => inboxes[turn++ % inboxes.length]!,
          messageBytes: 4096,
        });
        counts.smtp += r.accepted;
        counts.errors += r.errors;
      }
    })(),
    // Reads: lists, messages, stats.
    (async () => {
      while (running) {
        const address = inboxes[counts.reads % inboxes.length]!;
        const list = (await (await fetch(`${mail}/api/v1/inboxes/${address}/messages?limit=5`)).json()) as { id: string }[];
        for (const m of list.slice(0, 2)) await (await fetch(`${mail}/api/v1/messages/${m.id}`)).arrayBuffer();
        await (await fetch(`${mail}/api/v1/inboxes/${address}/stats`)).arrayBuffer();
        counts.reads++;
      }
    })(),
    // SSE clients that stay 2 s and go.
    (async () => {
      while (running) {
        await new Promise<void>((resolve) => {
          const req = get(`${mail}/api/v1/sse/inbox/${inboxes[counts.sse % inboxes.length]}`, (res) => {
            res.resume();
            setTimeout(() => {
              req.destroy();
              resolve();
            }, 2000);
          });
          req.on('error', () => resolve());
        });
        counts.sse++;
      }
    })(),
    // Jobs with callbacks.
    (async () => {
      while (running) {
        const res = await fetch(`${jobs}/v1/jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            domains: [`s${counts.jobs}.example`, `t${counts.jobs}.example`],
            job_types: ['seokicks'],
            webhook_url: hookUrl,
          }),
        });
        if (res.status === 201) counts.jobs++;
        else counts.errors++;
        await new Promise((r) => setTimeout(r, 250));
      }
    })(),
  ];

  const samples: Sample[] = [];
  while (Date.now() < endAt) {
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
    const sample: Sample = { at: Math.round((SECONDS * 1000 - (endAt - Date.now())) / 1000), rssMb: {}, fds: {} };
    for (const role of roles) {
      sample.rssMb[role] = rssMb(pids[role]!);
      sample.fds[role] = readdirSync(`/proc/${pids[role]}/fd`).length;
    }
    samples.push(sample);
    console.error(`${sample.at} s: RSS ${JSON.stringify(sample.rssMb)} fds ${JSON.stringify(sample.fds)} ${JSON.stringify(counts)}`);
  }
  running = false;
  await Promise.allSettled(loops);

  // After the warm-up (the first fifth), the second quarter of the run against the last one, each by its
  // median: a single sample lands anywhere on the garbage collector's sawtooth (±25 % seen on the worker).
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const n = samples.length;
  const early = samples.slice(Math.max(1, Math.floor(n / 5)), Math.max(2, Math.floor(n * 0.45)));
  const late = samples.slice(Math.floor(n * 0.75));
  const warm = early[0]!;
  const growth = Object.fromEntries(
    roles.map((r) => {
      const before = median(early.map((x) => x.rssMb[r]!));
      return [r, Math.round(((median(late.map((x) => x.rssMb[r]!)) - before) / before) * 1000) / 1000];
    }),
  );
  const fdGrowth = Object.fromEntries(
    roles.map((r) => [r, Math.max(...late.map((x) => x.fds[r]!)) - Math.max(...early.map((x) => x.fds[r]!))]),
  );
  const met = {
    rss_growth_under_10_percent: Object.values(growth).every((g) => g < TARGET_RSS_GROWTH),
    // A few descriptors come and go with connections in flight; steady growth is what a leak looks like.
    open_handles_not_growing: Object.values(fdGrowth).every((d) => d <= 5),
    no_errors: counts.errors === 0,
  };
  await writeResult('soak', {
    seconds: SECONDS,
    counts,
    warm_up_sample_at_s: warm.at,
    rss_growth: growth,
    fd_growth: fdGrowth,
    samples,
    met,
  });
  for (const [name, ok] of Object.entries(met)) if (!ok) console.error(`TARGET MISSED: ${name}`);
  failed = !Object.values(met).every(Boolean);
} catch (err) {
  failed = true;
  console.error('soak FAILED:', err);
  processes.fail();
} finally {
  await processes.cleanup();
}
process.exit(failed ? 1 : 0);
