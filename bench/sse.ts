// npm run bench:sse — live inboxes at scale: 10,000 Server-Sent Events subscribers on one `domainkit mail-api`
// process (10 on each of 1,000 inboxes), 1,000 messages sent over SMTP to a `domainkit smtp` process (one per
// inbox), both over a durable embedded PostgreSQL. Reports, per event, the time from the sender reading its 250
// to the subscriber reading the `message` event (p50/p99), the events lost, and the API process's RSS with
// the subscribers connected. Targets (2 cores): p99 < 200 ms, RSS < 600 MB, no event lost.
import { get, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from '../src/platform/db/index.ts';
import { freePort, log, percentile, scratchDatabase, writeResult } from './lib.ts';
import { benchProcesses, generateInbox, peakRss, waitForHttp } from './processes.ts';
import { runSmtpLoad, waitForSmtp } from './smtp-load.ts';

const SUBSCRIBERS = Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 10_000);
const INBOXES = Number(process.env.BENCH_SSE_INBOXES ?? 1_000);
const MESSAGES = INBOXES; // one per inbox
const SMTP_CONNECTIONS = 10;
// The subscribers come from 127.0.1.1, 127.0.1.2, … (all of 127/8 is the host), 50 from each: under the default
// bound of 100 live streams per client (MAIL_SSE_MAX_PER_CLIENT), which is on and taken and given back for each.
// BENCH_SSE_MAX_PER_CLIENT=0 runs the API without the bound, for comparison.
const PER_CLIENT_ADDRESS = 50;
const clientAddress = (i: number) => {
  const n = Math.floor(i / PER_CLIENT_ADDRESS);
  return `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;
};
const SSE_BOUND = process.env.BENCH_SSE_MAX_PER_CLIENT;
const HOST = '127.0.0.1';
const DOMAIN = 'bench.test';
const TARGET_P99_MS = 200;
const TARGET_RSS_MB = 600;

let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
let pool: Pool | undefined;
let failed = false;
const streams: IncomingMessage[] = [];
const processes = benchProcesses('sse', async () => {
  for (const s of streams) s.destroy();
  await pool?.end();
  await db?.release();
});

/** One subscriber: resolves `connected` on its first event and calls `onMessage` with each message's data. */
function subscribe(
  port: number,
  address: string,
  localAddress: string,
  onMessage: (data: { subject: string }, at: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const path = `/api/v1/sse/inbox/${encodeURIComponent(address)}`;
    const request = get({ host: HOST, port, path, localAddress, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE ${address}: HTTP ${res.statusCode}`));
      streams.push(res);
      res.setEncoding('utf8');
      let buffered = '';
      res.on('data', (chunk: string) => {
        buffered += chunk;
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          if (block.includes('event: connected')) resolve();
          else if (block.includes('event: message')) {
            const data = /^data: (.*)$/m.exec(block)![1]!;
            onMessage(JSON.parse(data) as { subject: string }, performance.now());
          }
        }
      });
      res.on('error', () => undefined);
    });
    request.on('error', reject);
  });
}

try {
  db = await scratchDatabase();
  pool = createPool(db.url, log);
  const [smtpPort, mailPort] = [await freePort(), await freePort()];
  const mailBase = `http://${HOST}:${mailPort}`;
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const env = { PATH: process.env.PATH, DATABASE_URL: db.url, HOST, MAIL_DOMAINS: DOMAIN, LOG_LEVEL: 'warn' };
  processes.start('smtp', [cli, 'smtp'], { ...env, SMTP_PORT: String(smtpPort) });
  const api = processes.start('mail-api', [cli, 'mail-api'], { ...env, MAIL_PORT: String(mailPort), MAIL_SSE_MAX_PER_CLIENT: SSE_BOUND });
  await Promise.all([waitForHttp(`${mailBase}/readyz`), waitForSmtp(HOST, smtpPort)]);

  const addresses: string[] = [];
  for (let i = 0; i < INBOXES; i++) addresses.push(await generateInbox(mailBase, DOMAIN));
  const rssIdleMb = peakRss(api.pid!);

  // Subscribers, 500 connecting at a time; each records when every message event reaches it.
  const received = new Map<string, { n: number; at: number }[]>(); // subscriber key → events
  const perInbox = SUBSCRIBERS / INBOXES;
  const connectStarted = performance.now();
  for (let from = 0; from < SUBSCRIBERS; from += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, SUBSCRIBERS - from) }, (_, k) => {
        const i = from + k;
        const address = addresses[i % INBOXES]!;
        const key = `${i}`;
        received.set(key, []);
        return subscribe(mailPort, address, clientAddress(i), (data, at) =>
          received.get(key)!.push({ n: Number(/(\d+)$/.exec(data.subject)![1]), at }),
        );
      }),
    );
  }
  const connectSeconds = (performance.now() - connectStarted) / 1000;
  console.error(`${SUBSCRIBERS} subscribers connected in ${connectSeconds.toFixed(1)} s`);

  // One message per inbox, in order, over 10 SMTP connections; the 250 of message n is read at accepted[n].
  const accepted = new Map<number, { to: string; at: number }>();
  let next = 0;
  const sent = await runSmtpLoad({
    host: HOST,
    port: smtpPort,
    connections: SMTP_CONNECTIONS,
    messages: MESSAGES,
    recipients: () => addresses[next++ % INBOXES]!,
    messageBytes: 4 * 1024,
    onAccepted: (n, to, at) => accepted.set(n, { to, at }),
  });
  if (sent.errors > 0) throw new Error(`SMTP: ${sent.errors} errors: ${sent.errorSamples.join('; ')}`);

  // Every subscriber should get exactly the messages of its inbox: wait for them (60 s at most).
  const expected = sent.accepted * perInbox;
  const count = () => [...received.values()].reduce((n, events) => n + events.length, 0);
  const deadline = Date.now() + 60_000;
  while (count() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const rssMb = peakRss(api.pid!);

  const latencies: number[] = [];
  let lost = 0;
  let duplicated = 0;
  let wrongInbox = 0;
  const sentTo = new Map<string, number[]>();
  for (const [n, a] of accepted) sentTo.set(a.to, [...(sentTo.get(a.to) ?? []), n]);
  for (const [key, events] of received) {
    const address = addresses[Number(key) % INBOXES]!;
    const mine = sentTo.get(address) ?? [];
    const seen = new Set<number>();
    for (const e of events) {
      if (seen.has(e.n)) duplicated++;
      seen.add(e.n);
      const a = accepted.get(e.n);
      if (!a || a.to !== address) wrongInbox++;
      else latencies.push(e.at - a.at);
    }
    lost += mine.filter((n) => !seen.has(n)).length;
  }
  const round = (n: number) => Math.round(n * 10) / 10;
  const p50 = round(percentile(latencies, 50));
  const p99 = round(percentile(latencies, 99));
  const met = {
    p99_latency: p99 < TARGET_P99_MS,
    rss: rssMb < TARGET_RSS_MB,
    no_event_lost: lost === 0 && duplicated === 0 && wrongInbox === 0,
  };
  await writeResult('sse', {
    load: {
      subscribers: SUBSCRIBERS,
      inboxes: INBOXES,
      subscribers_per_inbox: perInbox,
      messages: MESSAGES,
      smtp_connections: SMTP_CONNECTIONS,
      client: 'node:http, one connection per subscriber, in the benchmark process',
      client_addresses: `${Math.ceil(SUBSCRIBERS / PER_CLIENT_ADDRESS)} (127.0.1.x…), ${PER_CLIENT_ADDRESS} subscribers each`,
      sse_max_per_client: SSE_BOUND ?? '100 (default)',
      processes: '`domainkit mail-api` (the subscribers) and `domainkit smtp` (the mail) over a durable embedded PostgreSQL',
      measured: 'from the sender reading the 250 to the subscriber reading the message event',
    },
    subscribers_connected_seconds: round(connectSeconds),
    smtp_messages_per_s: Math.round(sent.accepted / sent.seconds),
    events_expected: expected,
    events_received: latencies.length,
    lost,
    duplicated,
    wrong_inbox: wrongInbox,
    // NOTIFY goes out at commit, before the receiver writes its 250: an event may be read before the 250 (< 0).
    latency_ms: { min: round(Math.min(...latencies)), p50, p99, max: round(Math.max(...latencies)) },
    rss_mb: { before_subscribers: rssIdleMb, peak_with_subscribers: rssMb },
    targets: { p99_ms: `< ${TARGET_P99_MS}`, rss_mb: `< ${TARGET_RSS_MB}`, events: 'none lost, duplicated or misdelivered' },
    met,
  });
  for (const [name, ok] of Object.entries(met)) if (!ok) console.error(`TARGET MISSED: ${name}`);
} catch (err) {
  failed = true;
  console.error('bench:sse FAILED:', err);
  processes.fail();
} finally {
  await processes.cleanup();
}
process.exit(failed ? 1 : 0);
