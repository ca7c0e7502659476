// `npm run demo`: the whole system (both APIs, SMTP, workers) wired to the fake providers of fakes/, on a
// database of its own, with a key made for a `demo` tenant and a curl line that creates a job. Every SEO
// number it produces is made up by the fakes, and it says so.
import { join } from 'node:path';
import { ConfigError, loadConfig, loadDotEnv, type Config } from '../config.ts';
import { makeKey, parseScopes } from '../jobs/index.ts';
import { createLogger } from '../platform/log.ts';
import { onShutdown } from '../platform/shutdown.ts';
import { ROLES, startRoles } from '../roles.ts';
import { startAhrefsFake } from './fakes/ahrefs.ts';
import { startMozFake } from './fakes/moz.ts';
import { startSeokicksFake } from './fakes/seokicks.ts';
import { startWaybackFake } from './fakes/wayback.ts';

const DOMAINS = ['example.com', 'flaky.example.org', 'nodata.example.net'];
const SOURCES = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];

loadDotEnv();
// A database of its own (embedded, under DATA_DIR/demo): made-up numbers never land in a real one, even when
// .env names a DATABASE_URL.
const { DATABASE_URL: _ignored, ...env } = process.env;
const dataDir = join(env.DATA_DIR ?? './.data', 'demo');
const credentials = { seokicks: 'demo-seokicks-key', moz: 'demo-moz-token', ahrefs: 'demo-ahrefs-key' };
// A little latency, so the progress of a job can be watched.
const fakes = {
  seokicks: await startSeokicksFake({ apiKey: credentials.seokicks, latencyMs: 150 }),
  moz: await startMozFake({ token: credentials.moz, latencyMs: 300 }),
  ahrefs: await startAhrefsFake({ apiKey: credentials.ahrefs, latencyMs: 200 }),
  wayback: await startWaybackFake({ latencyMs: 250 }),
};
const closeFakes = () => Promise.all(Object.values(fakes).map((f) => f.close()));

const config = readConfig();

// Log lines go to stderr, and only warnings unless LOG_LEVEL asks for more: stdout is the banner.
const log = createLogger({ level: env.LOG_LEVEL ? config.logLevel : 'warn', name: 'domainkit-demo' }, process.stderr);
const starting = startRoles(config, log, ROLES);
onShutdown(async () => {
  await (await starting.catch(() => undefined))?.stop();
  await closeFakes();
}, log);
const running = await starting.catch(async (err: unknown) => {
  log.fatal({ err }, 'could not start');
  process.stderr.write(`domainkit demo: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  await closeFakes();
  process.exit(1);
});

const key = await makeKey(running.db.pool, 'demo', `demo ${new Date().toISOString()}`, parseScopes('jobs:create,jobs:read,keys:read'));
const jobsUrl = reachable(running.addresses['jobs-api']!);
const body = JSON.stringify({ domains: DOMAINS, job_types: SOURCES });
const auth = `-H 'Authorization: Bearer ${key.token}'`;

process.stdout.write(
  [
    '',
    'domainkit demo: every SEO number it gives is FAKE, made up by local stand-ins for the providers.',
    '',
    `  jobs API   ${jobsUrl}`,
    `  mail API   ${reachable(running.addresses['mail-api']!)}`,
    `  SMTP       ${reachable(running.addresses.smtp!)}`,
    `  database   embedded PostgreSQL in ${dataDir} (the demo's own)`,
    `  fakes      seokicks ${fakes.seokicks.url}, moz ${fakes.moz.url}, ahrefs ${fakes.ahrefs.url}, wayback ${fakes.wayback.url}`,
    '  ping       real: it asks the domains themselves',
    '',
    `A key for tenant "demo" (jobs:create, jobs:read, keys:read), shown once: ${key.token}`,
    '',
    'Create a job:',
    `curl -sS -X POST ${jobsUrl}/v1/jobs ${auth} -H 'Content-Type: application/json' -d '${body}'`,
    '',
    'Then, with the job_id it answers:',
    `  curl -sS ${jobsUrl}/v1/jobs/JOB_ID ${auth}`,
    `  curl -sS ${jobsUrl}/v1/jobs/JOB_ID/results ${auth}`,
    '',
    'The fakes answer by the domain named: flaky.* fails once then succeeds (watch attempts: 2), nodata.* is',
    'unknown to the provider, ratelimit.* is throttled (429), auth-fail.* is refused (401), malformed.* answers',
    'a body of the wrong shape. Moz and Wayback keep their real rates (one call per 10 s, 0.4/s), so they finish',
    'last. Ctrl-C stops everything.',
    '',
  ].join('\n'),
);
await walkThrough().catch((err: unknown) =>
  process.stderr.write(`domainkit demo: the walk-through stopped: ${err instanceof Error ? err.message : String(err)}\n`),
);

interface Job {
  job_id: string;
  status: string;
  progress: { total: number; succeeded: number; failed: number };
  cost: Record<string, { amount: number; unit: string | null }>;
}

/**
 * Cost and the cache, shown: a job the demo runs itself, then the same job as a dry run with a max age and
 * created with it. Its domains are ones whose every row succeeds: an error row (nodata.*) is never reused, and
 * the second job would have to fetch it again instead of ending at once.
 */
async function walkThrough(): Promise<void> {
  const tour = { domains: ['example.com', 'flaky.example.org'], job_types: SOURCES };
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${jobsUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await res.json()) as T;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const amount = (c: { amount: number; unit: string | null } | undefined) => (c ? `${c.amount} ${c.unit ?? '(free)'}` : '');

  say(`\nWalk-through: ${tour.domains.join(' and ')} over the six sources, run now (Moz's rate: about 10 s)…`);
  const started = performance.now();
  let job = await call<Job>('/v1/jobs', { ...tour, max_age: 0 });
  while (!['completed', 'failed', 'cancelled'].includes(job.status)) {
    await new Promise((r) => setTimeout(r, 500));
    job = await call<Job>(`/v1/jobs/${job.job_id}`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  say(`  job ${job.job_id}: ${job.status} in ${seconds} s, ${job.progress.succeeded} of ${job.progress.total} rows ok`);

  const estimate = await call<{ rows: { to_fetch: number; from_cache: number }; sources: Record<string, { cost: Job['cost'][string] }> }>(
    '/v1/jobs',
    { ...tour, max_age: '1h', dry_run: true },
  );
  say(`  dry run with "max_age": "1h": ${estimate.rows.from_cache} rows from cache, ${estimate.rows.to_fetch} to fetch (nothing stored)`);

  const again = await call<Job>('/v1/jobs', { ...tour, max_age: '1h' });
  const { results } = await call<{ results: { cached_from: string | null }[] }>(`/v1/jobs/${again.job_id}/results`);
  // The freshest earlier result of each row: the first job's, or a job of the same tenant made since.
  const from = new Set(results.map((r) => r.cached_from));
  const copied = results.filter((r) => r.cached_from !== null).length;
  const atOnce = again.status === 'completed' ? ' at once' : '';
  say(`  the same job with "max_age": "1h": job ${again.job_id}, answered ${again.status}${atOnce};`);
  say(`    ${copied} of ${results.length} rows with cached_from (the job that fetched them): ${[...from].join(', ')}`);

  // Each source's cost from the job objects, the estimate's between them.
  const rows = [
    ['cost', 'first job', 'dry run estimate', 'with max_age'],
    ...SOURCES.map((source) => [source, amount(job.cost[source]), amount(estimate.sources[source]?.cost), amount(again.cost[source])]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('   ');
  for (const row of rows) say(`  ${line(row).trimEnd()}`);
  say('');
}

/** A listening address as a URL to type: a wildcard bind is reached on localhost. */
function reachable(address: string): string {
  return address.replace('://0.0.0.0:', '://localhost:').replace('://[::]:', '://localhost:');
}

function readConfig(): Config {
  try {
    return loadConfig({
      ...env,
      DATA_DIR: dataDir,
      SEOKICKS_API_KEY: credentials.seokicks,
      SEOKICKS_BASE_URL: fakes.seokicks.url,
      MOZ_TOKEN: credentials.moz,
      MOZ_ACCESS_ID: undefined,
      MOZ_SECRET_KEY: undefined,
      MOZ_BASE_URL: fakes.moz.url,
      AHREFS_API_KEY: credentials.ahrefs,
      AHREFS_BASE_URL: `${fakes.ahrefs.url}/v3`,
      WAYBACK_BASE_URL: fakes.wayback.url,
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`domainkit demo: ${err.message}\n`);
    process.exit(2);
  }
}
