// npm run bench:smtp — mail ingestion over SMTP: the receiver (`domainkit smtp`) and the mail API
// (`domainkit mail-api`) as separate processes over a durable embedded PostgreSQL, loaded by a raw-socket SMTP
// generator (bench/smtp-load.ts: 20 connections, ~10 KB multipart/alternative messages). Reports messages/s
// accepted (each one checked to be stored), DATA→250 latency p50/p99 and the receiver's peak RSS, against MailDev
// (in memory, not durable) loaded by the same generator in the same run, rounds interleaved. Then
// GET /api/v1/inboxes/{address}/messages with 50 connections (autocannon) against a GET /healthz baseline.
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from '../src/platform/db/index.ts';
import { cpuSeconds, freePort, log, percentile, scratchDatabase, writeResult } from './lib.ts';
import { benchProcesses, generateInbox, peakRss, waitForHttp } from './processes.ts';
import { runSmtpLoad, waitForSmtp, type SmtpLoadResult } from './smtp-load.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MESSAGES = Number(process.env.BENCH_SMTP_MESSAGES ?? 3000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 20;
const MESSAGE_BYTES = 10 * 1024;
const INBOXES = 50;
const DOMAIN = 'bench.test';
const HOST = '127.0.0.1';
const TARGET_MPS = 1000;
const TARGET_LIST_RPS = 4000;

interface Round {
  messagesPerSecond: number;
  /** CPU time per accepted message: the receiver's process and PostgreSQL's (ours), MailDev's process (theirs). */
  cpuMsPerMessage: number;
  receiverCpuMsPerMessage?: number;
  postgresCpuMsPerMessage?: number;
  p50: number;
  p99: number;
  accepted: number;
  seconds: number;
}

let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
let pool: Pool | undefined;
let failed = false;
const processes = benchProcesses('smtp', async () => {
  await pool?.end();
  await db?.release();
});
const start = processes.start;

try {
  db = await scratchDatabase();
  pool = createPool(db.url, log);
  const [smtpPort, mailPort, maildevSmtpPort, maildevWebPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const mailBase = `http://${HOST}:${mailPort}`;

  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const env = { PATH: process.env.PATH, DATABASE_URL: db.url, HOST, MAIL_DOMAINS: DOMAIN, LOG_LEVEL: 'warn' };
  const smtp = start('smtp', [cli, 'smtp'], { ...env, SMTP_PORT: String(smtpPort) });
  start('mail-api', [cli, 'mail-api'], { ...env, MAIL_PORT: String(mailPort) });
  // MailDev keeps messages in memory and writes each .eml under os.tmpdir() (not fsynced): TMPDIR is a scratch
  // directory of ours, removed at the end.
  const maildevTmp = await mkdtemp(join(tmpdir(), 'domainkit-bench-maildev-'));
  processes.remove(maildevTmp);
  const maildevBin = fileURLToPath(new URL('../node_modules/maildev/dist/bin/maildev.js', import.meta.url));
  const maildev = start(
    'maildev',
    [maildevBin, '--smtp', String(maildevSmtpPort), '--ip', HOST, '--web', String(maildevWebPort), '--web-ip', HOST, '--silent'],
    { PATH: process.env.PATH, TMPDIR: maildevTmp },
  );

  await Promise.all([waitForHttp(`${mailBase}/readyz`), waitForSmtp(HOST, smtpPort), waitForSmtp(HOST, maildevSmtpPort)]);
  // PostgreSQL's postmaster: its children (the backends, the WAL writer, the checkpointer) do our storing.
  const postmaster = Number(readFileSync(join(db.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

  // 50 inboxes; recipients round-robin (MailDev takes any address: it gets the same ones).
  const addresses: string[] = [];
  for (let i = 0; i < INBOXES; i++) addresses.push(await generateInbox(mailBase, DOMAIN));
  let turn = 0;
  const recipients = () => addresses[turn++ % addresses.length]!;

  const ours = (messages: number) => load(smtpPort, messages, recipients);
  const theirs = (messages: number) => load(maildevSmtpPort, messages, recipients);

  // Warm-up (JIT, pools, prepared statements), not counted; then rounds interleaved, the order alternating.
  await ours(1000);
  await theirs(1000);
  const oursRounds: Round[] = [];
  const maildevRounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? ['ours', 'maildev'] : ['maildev', 'ours'];
    for (const who of order) {
      if (who === 'ours') oursRounds.push(await ours(MESSAGES));
      else maildevRounds.push(await theirs(MESSAGES));
      const last = who === 'ours' ? oursRounds.at(-1)! : maildevRounds.at(-1)!;
      console.error(
        `round ${i + 1} ${who.padEnd(7)}: ${last.messagesPerSecond} messages/s, ${last.cpuMsPerMessage} CPU ms/message${last.postgresCpuMsPerMessage === undefined ? '' : ` (PostgreSQL ${last.postgresCpuMsPerMessage})`}, DATA→250 p50 ${last.p50} ms, p99 ${last.p99} ms`,
      );
    }
  }
  const peakRssMb = peakRss(smtp.pid!);
  const maildevPeakRssMb = peakRss(maildev.pid!);
  const { rows: sized } = await pool.query<{ bytes: number }>('SELECT round(avg(raw_size))::int AS bytes FROM messages');
  const best = median(oursRounds);
  const maildevBest = median(maildevRounds);

  // GET /api/v1/inboxes/{address}/messages on an inbox of 20 messages (the list returns them all: limit 50).
  const listed = await generateInbox(mailBase, DOMAIN);
  const filled = await runSmtpLoad({
    host: HOST,
    port: smtpPort,
    connections: 1,
    messages: 20,
    recipients: () => listed,
    messageBytes: MESSAGE_BYTES,
  });
  if (filled.accepted !== 20) throw new Error(`filling the list inbox: ${filled.errors} errors: ${filled.errorSamples.join('; ')}`);
  const listPath = `/api/v1/inboxes/${encodeURIComponent(listed)}/messages`;
  const first = (await (await fetch(`${mailBase}${listPath}`)).json()) as unknown[];
  if (!Array.isArray(first) || first.length !== 20)
    throw new Error(`GET ${listPath}: expected 20 messages, got ${JSON.stringify(first).slice(0, 200)}`);

  const checked = async (path: string) => {
    const r = await autocannon({ url: `${mailBase}${path}`, connections: 50, duration: SECONDS });
    if (r.non2xx || r.errors || r.timeouts) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    return r;
  };
  await checked(listPath); // warm-up
  const listRounds: { health: autocannon.Result; list: autocannon.Result }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    listRounds.push({ health: await checked('/healthz'), list: await checked(listPath) });
    const r = listRounds.at(-1)!;
    console.error(
      `round ${i + 1} list: ${Math.round(r.list.requests.average)} req/s (healthz ${Math.round(r.health.requests.average)} req/s)`,
    );
  }
  const listEach = listRounds.map((r) => Math.round(r.list.requests.average));
  listRounds.sort((a, b) => a.list.requests.average - b.list.requests.average);
  const { health, list } = listRounds[Math.floor(listRounds.length / 2)]!;

  const ratio = round(best.messagesPerSecond / maildevBest.messagesPerSecond, 2);
  const met = {
    messages_per_s: best.messagesPerSecond >= TARGET_MPS,
    ahead_of_maildev: best.messagesPerSecond > maildevBest.messagesPerSecond,
    list_messages_requests_per_s: list.requests.average >= TARGET_LIST_RPS,
  };
  await writeResult('smtp', {
    load: {
      generator: 'bench/smtp-load.ts: raw sockets, EHLO once, then MAIL/RCPT/DATA per message on the same connection, no pipelining',
      connections: CONNECTIONS,
      message_bytes: MESSAGE_BYTES,
      message_bytes_stored_avg: sized[0]!.bytes,
      message: 'multipart/alternative, text/plain + text/html, unique Subject and Message-ID',
      messages_per_round: MESSAGES,
      rounds: ROUNDS,
      inboxes: INBOXES,
      reported: 'median round by messages/s; its DATA→250 percentiles (from writing the final "." line to the 250)',
    },
    messages_per_s: best.messagesPerSecond,
    data_to_250_ms: { p50: best.p50, p99: best.p99 },
    peak_rss_mb: peakRssMb,
    storage:
      'PostgreSQL (embedded, durable: fsync and synchronous_commit on), 250 only after commit; every accepted message counted in the messages table by Message-ID',
    each_round: oursRounds,
    maildev: {
      version: '3.0.0',
      storage: 'in memory, plus an .eml written under TMPDIR without fsync: not durable',
      messages_per_s: maildevBest.messagesPerSecond,
      p50: maildevBest.p50,
      p99: maildevBest.p99,
      peak_rss_mb: maildevPeakRssMb,
      each_round: maildevRounds,
    },
    ratio_vs_maildev: ratio,
    list_messages: {
      path: 'GET /api/v1/inboxes/{address}/messages (inbox of 20 messages, all listed)',
      connections: 50,
      seconds: SECONDS,
      requests_per_s: Math.round(list.requests.average),
      rounds: listEach,
      latency_p50_ms: list.latency.p50,
      latency_p99_ms: list.latency.p99,
      healthz_baseline: Math.round(health.requests.average),
      ratio_to_healthz: round(list.requests.average / health.requests.average, 2),
    },
    targets: {
      messages_per_s: `>= ${TARGET_MPS} (accepted and stored)`,
      ahead_of_maildev: 'ratio_vs_maildev > 1',
      list_messages_requests_per_s: `>= ${TARGET_LIST_RPS}`,
    },
    met,
  });
  for (const [name, ok] of Object.entries(met)) if (!ok) console.error(`TARGET MISSED: ${name}`);

  async function load(port: number, messages: number, to: () => string): Promise<Round> {
    const before = port === smtpPort ? await countMessages() : 0;
    const receiver = port === smtpPort ? smtp.pid! : maildev.pid!;
    const cpuBefore = [cpuSeconds([receiver]), port === smtpPort ? cpuSeconds([postmaster]) : 0];
    const r: SmtpLoadResult = await runSmtpLoad({
      host: HOST,
      port,
      connections: CONNECTIONS,
      messages,
      recipients: to,
      messageBytes: MESSAGE_BYTES,
    });
    const perMessage = (seconds: number) => round((seconds * 1000) / r.accepted, 3);
    const receiverCpu = perMessage(cpuSeconds([receiver]) - cpuBefore[0]!);
    const postgresCpu = port === smtpPort ? perMessage(cpuSeconds([postmaster]) - cpuBefore[1]!) : 0;
    const who = port === smtpPort ? 'domainkit' : 'MailDev';
    if (r.errors > 0 || r.accepted !== messages) {
      throw new Error(`${who}: ${r.accepted} of ${messages} accepted, ${r.errors} errors: ${r.errorSamples.join('; ')}`);
    }
    if (port === smtpPort) {
      // Stored, not only acknowledged: the new rows, and each accepted Message-ID among them.
      const added = (await countMessages()) - before;
      const { rows } = await pool!.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE headers->>'message-id' = ANY($1::text[])`,
        [r.acceptedIds],
      );
      if (added !== r.accepted || rows[0]!.n !== r.accepted) {
        throw new Error(`${who}: ${r.accepted} accepted but ${added} rows added, ${rows[0]!.n} of the accepted Message-IDs found`);
      }
    }
    return {
      messagesPerSecond: Math.round(r.accepted / r.seconds),
      cpuMsPerMessage: round(receiverCpu + postgresCpu, 3),
      ...(port === smtpPort ? { receiverCpuMsPerMessage: receiverCpu, postgresCpuMsPerMessage: postgresCpu } : {}),
      p50: round(percentile(r.latenciesMs, 50), 1),
      p99: round(percentile(r.latenciesMs, 99), 1),
      accepted: r.accepted,
      seconds: round(r.seconds, 2),
    };
  }
} catch (err) {
  failed = true;
  console.error('bench:smtp FAILED:', err);
  processes.fail();
} finally {
  await processes.cleanup();
}
process.exit(failed ? 1 : 0);

function countMessages(): Promise<number> {
  return pool!.query<{ n: number }>('SELECT count(*)::int AS n FROM messages').then((r) => r.rows[0]!.n);
}

function median(rounds: Round[]): Round {
  return [...rounds].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[Math.floor(rounds.length / 2)]!;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
