// npm run bench:wait — waiting for a message at scale: 1,000 long-polling waits
// (GET /api/v1/inboxes/{address}/wait) on one `domainkit mail-api` process, 2 on each of 500 inboxes (one
// without filters, one with `from` and `subject`), then one message per inbox sent over SMTP to a
// `domainkit smtp` process, both over a durable embedded PostgreSQL. Reports:
// - commit-to-answer latency (p50/p99): from the commit time PostgreSQL records for the message's transaction
//   (track_commit_timestamp, on for this benchmark; received_at is the transaction's start, not its commit) to
//   the wait's client reading the last byte of its answer, both on the machine's clock. As a check, the same
//   from the two moments the sender sees around the commit: writing the final `.` (before it) and reading the
//   250 (after it; an answer may come first, < 0);
// - database queries per idle wait per minute: pg_stat_database's xact_commit + xact_rollback of the
//   benchmark's database (every statement of ours is a transaction) while the 1,000 waits hang for a minute
//   with nothing arriving, against the same minute before the waits were made (PostgreSQL's own bookkeeping);
//   the receiver starts only afterwards and autovacuum pauses meanwhile, so that what is counted is the API's;
// - CPU per answer (the API process alone, and with the PostgreSQL server) and the API's CPU while idle.
// Targets (2 cores): p99 < 100 ms from the commit, 0 queries per idle wait, every wait answered once.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from '../src/platform/db/index.ts';
import { cpuSeconds, freePort, log, percentile, scratchDatabase, writeResult } from './lib.ts';
import { benchProcesses, generateInbox, peakRss, waitForHttp } from './processes.ts';
import { runSmtpLoad, waitForSmtp } from './smtp-load.ts';

const WAITERS = Number(process.env.BENCH_WAIT_WAITERS ?? 1_000);
const INBOXES = Number(process.env.BENCH_WAIT_INBOXES ?? 500);
const IDLE_SECONDS = Number(process.env.BENCH_WAIT_IDLE_SECONDS ?? 60);
const SMTP_CONNECTIONS = 10;
const HOST = '127.0.0.1';
const DOMAIN = 'bench.test';
const TARGET_P99_MS = 100;
/** PostgreSQL flushes a backend's statistics within 10 s of its going idle (PGSTAT_IDLE_INTERVAL). */
const STATS_FLUSH_MS = 11_000;

let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
let pool: Pool | undefined;
let failed = false;
const processes = benchProcesses('wait', async () => {
  await pool?.end();
  await db?.release();
});

interface Answer {
  status: string;
  message?: { subject: string; to_address: string };
}

/** One wait over its own connection; resolves with the answer and when its last byte was read. */
function wait(port: number, address: string, query: string): Promise<{ answer: Answer; at: number }> {
  return new Promise((resolve, reject) => {
    const path = `/api/v1/inboxes/${encodeURIComponent(address)}/wait?timeout=300${query}`;
    const req = request({ host: HOST, port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const at = performance.now();
        if (res.statusCode !== 200) return reject(new Error(`wait ${address}: HTTP ${res.statusCode} ${body}`));
        resolve({ answer: JSON.parse(body) as Answer, at });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitersHeld(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^domainkit_mail_waiters (\S+)$/m.exec(text)?.[1] ?? 0);
}

async function transactions(): Promise<number> {
  const { rows } = await pool!.query<{ n: number }>(
    'SELECT (xact_commit + xact_rollback)::float8 AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return rows[0]!.n;
}

/**
 * The transactions of the benchmark's database during IDLE_SECONDS of nothing happening, less the first read's
 * own, and the API process's CPU seconds meanwhile. The statistics of what came before are flushed first.
 */
async function idle(apiPid: number): Promise<{ transactions: number; apiCpuSeconds: number }> {
  await sleep(STATS_FLUSH_MS);
  const before = { transactions: await transactions(), cpu: cpuSeconds([apiPid]) };
  await sleep(IDLE_SECONDS * 1000);
  const apiCpuSeconds = cpuSeconds([apiPid]) - before.cpu;
  return { transactions: (await transactions()) - before.transactions - 1, apiCpuSeconds };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

try {
  db = await scratchDatabase({ track_commit_timestamp: 'on' });
  pool = createPool(db.url, log, 1);
  const postmaster = Number(readFileSync(join(db.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const [smtpPort, mailPort] = [await freePort(), await freePort()];
  const mailBase = `http://${HOST}:${mailPort}`;
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const env = { PATH: process.env.PATH, DATABASE_URL: db.url, HOST, MAIL_DOMAINS: DOMAIN, LOG_LEVEL: 'warn', MAIL_WAIT_MAX_SECONDS: '300' };
  // The waits all come from one address: the per-client bound (100 by default) is off here; bench:sse measures
  // the bounds' cost.
  const api = processes.start('mail-api', [cli, 'mail-api'], { ...env, MAIL_PORT: String(mailPort), MAIL_WAIT_MAX_PER_CLIENT: '0' });
  await waitForHttp(`${mailBase}/readyz`);

  const addresses: string[] = [];
  for (let i = 0; i < INBOXES; i++) addresses.push(await generateInbox(mailBase, DOMAIN));

  // Idle, twice: without waits (the baseline: PostgreSQL's own bookkeeping), then with the waits held. Nothing
  // else runs transactions meanwhile: the receiver (whose queue client reads its tables now and then) starts
  // after, and autovacuum (whose visits are transactions of the database too) pauses.
  await pool.query('ALTER SYSTEM SET autovacuum = off');
  await pool.query('SELECT pg_reload_conf()');
  console.error(`no waits; idle for ${IDLE_SECONDS} s`);
  const baseline = await idle(api.pid!);

  // The waits, 250 connecting at a time; half of them filter on the sender and the subject.
  const answers: Promise<{ address: string; answer: Answer; at: number }>[] = [];
  for (let i = 0; i < WAITERS; i++) {
    const address = addresses[i % INBOXES]!;
    const query = i % 2 === 0 ? '' : '&from=load.test&subject=load%20test';
    answers.push(wait(mailPort, address, query).then((r) => ({ address, ...r })));
    if (i % 250 === 249) while ((await waitersHeld(mailBase)) < i + 1) await sleep(20);
  }
  while ((await waitersHeld(mailBase)) < WAITERS) await sleep(20);
  const rssWaitingMb = peakRss(api.pid!);

  console.error(`${WAITERS} waits held; idle for ${IDLE_SECONDS} s`);
  const waiting = await idle(api.pid!);
  const stillWaiting = await waitersHeld(mailBase);
  await pool.query('ALTER SYSTEM RESET autovacuum');
  await pool.query('SELECT pg_reload_conf()');
  processes.start('smtp', [cli, 'smtp'], { ...env, SMTP_PORT: String(smtpPort) });
  await waitForSmtp(HOST, smtpPort);

  // One message per inbox, over 10 SMTP connections; the commit of the message to `to` lies in [sent, at].
  const accepted = new Map<string, { at: number; sent: number }>();
  let next = 0;
  const cpuBefore = { api: cpuSeconds([api.pid!]), postgres: cpuSeconds([postmaster]) };
  const sent = await runSmtpLoad({
    host: HOST,
    port: smtpPort,
    connections: SMTP_CONNECTIONS,
    messages: INBOXES,
    recipients: () => addresses[next++]!,
    messageBytes: 4 * 1024,
    onAccepted: (_n, to, at, sentAt) => accepted.set(to, { at, sent: sentAt }),
  });
  if (sent.errors > 0) throw new Error(`SMTP: ${sent.errors} errors: ${sent.errorSamples.join('; ')}`);
  const results = await Promise.all(answers);
  const cpu = { api: cpuSeconds([api.pid!]) - cpuBefore.api, postgres: cpuSeconds([postmaster]) - cpuBefore.postgres };

  // When each message was committed, by PostgreSQL's clock (epoch milliseconds), by its inbox's address.
  const { rows: commits } = await pool.query<{ address: string; ms: number }>(
    `SELECT i.address, extract(epoch FROM pg_xact_commit_timestamp(m.xmin))::float8 * 1000 AS ms
      FROM messages m JOIN inboxes i ON i.id = m.inbox_id`,
  );
  const committedAt = new Map(commits.map((c) => [c.address, c.ms]));
  const fromCommit: number[] = [];
  const from250: number[] = [];
  const fromDot: number[] = [];
  let wrong = 0;
  for (const { address, answer, at } of results) {
    const smtp = accepted.get(address);
    const committed = committedAt.get(address);
    if (answer.status !== 'message' || answer.message?.to_address !== address || !smtp || committed === undefined) {
      wrong++;
      continue;
    }
    fromCommit.push(performance.timeOrigin + at - committed);
    from250.push(at - smtp.at);
    fromDot.push(at - smtp.sent);
  }
  await sleep(500);
  const leftWaiting = await waitersHeld(mailBase);
  const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
  const latency = (values: number[]) => ({
    min: round(Math.min(...values)),
    p50: round(percentile(values, 50)),
    p99: round(percentile(values, 99)),
    max: round(Math.max(...values)),
  });
  const byWaits = waiting.transactions - baseline.transactions;
  const perWaitPerMinute = Math.max(0, byWaits) / WAITERS / (IDLE_SECONDS / 60);
  const met = {
    p99_latency: percentile(fromCommit, 99) < TARGET_P99_MS,
    idle_queries: byWaits <= 0,
    every_wait_answered_once: wrong === 0 && fromCommit.length === WAITERS && leftWaiting === 0 && stillWaiting === WAITERS,
  };
  await writeResult('wait', {
    load: {
      waits: WAITERS,
      inboxes: INBOXES,
      waits_per_inbox: WAITERS / INBOXES,
      filters: 'half none, half from=load.test&subject=load test',
      messages: INBOXES,
      smtp_connections: SMTP_CONNECTIONS,
      client: 'node:http, one connection per wait, in the benchmark process',
      processes: '`domainkit mail-api` (the waits) and `domainkit smtp` (the mail) over a durable embedded PostgreSQL',
      measured:
        "from pg_xact_commit_timestamp of the message's transaction (track_commit_timestamp on) to the client reading the answer's last byte; checks: from the sender writing the final '.' (before the commit) and reading the 250 (after it)",
    },
    answered: fromCommit.length,
    wrong_or_missing: wrong,
    waits_left_after: leftWaiting,
    smtp_messages_per_s: Math.round(sent.accepted / sent.seconds),
    commit_to_answer_ms: latency(fromCommit),
    check_from_250_ms: latency(from250),
    check_from_final_dot_ms: latency(fromDot),
    idle: {
      seconds: IDLE_SECONDS,
      waits_held: stillWaiting,
      database_transactions: { without_waits: baseline.transactions, with_waits: waiting.transactions, by_waits: byWaits },
      counted:
        "pg_stat_database xact_commit + xact_rollback of the benchmark's database (less the benchmark's own read), the API alone running, autovacuum paused",
      queries_per_wait_per_minute: round(perWaitPerMinute, 4),
      api_cpu_seconds: { without_waits: round(baseline.apiCpuSeconds, 2), with_waits: round(waiting.apiCpuSeconds, 2) },
    },
    cpu_ms_per_answer: {
      api: round((cpu.api * 1000) / fromCommit.length, 3),
      postgres: round((cpu.postgres * 1000) / fromCommit.length, 3),
      note: 'the answering phase: SMTP sends to the last answer; PostgreSQL also stores the messages then',
    },
    rss_mb_with_waits: rssWaitingMb,
    targets: {
      p99_ms_from_250: `< ${TARGET_P99_MS}`,
      queries_per_idle_wait_per_minute: 0,
      waits: 'each answered once, with its own inbox',
    },
    met,
  });
  for (const [name, ok] of Object.entries(met)) if (!ok) console.error(`TARGET MISSED: ${name}`);
} catch (err) {
  failed = true;
  console.error('bench:wait FAILED:', err);
  processes.fail();
} finally {
  await processes.cleanup();
}
process.exit(failed ? 1 : 0);
