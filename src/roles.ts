// The composition root: builds each role of the program from config and starts it. `domainkit start` runs
// every role in one process; `domainkit <role>` runs one, against the same database, for scaling out.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { LookupFunction } from 'node:net';
import type { SMTPServer } from 'smtp-server';
import type { Config } from './config.ts';
import {
  buildJobsApp,
  ensureSourceColumns,
  JOB_SOURCES,
  jobsWebhookService,
  reportQueueDepth,
  sourceRegistry,
  startEngine,
  type Engine,
  type EngineTimings,
  type SourceDescriptor,
} from './jobs/index.ts';
import { buildMailApp, createSmtpServer, ensureDomains, mailWebhookService, startSweeper, type Sweeper } from './mail/index.ts';
import { migrate, openDatabase, type Database } from './platform/db/index.ts';
import { buildMetricsApp, type App } from './platform/http/index.ts';
import { startClientLeases, type ClientLeases } from './platform/leases/index.ts';
import type { Logger } from './platform/log.ts';
import { allowEverything, createOutbound, policyFor, type Outbound } from './platform/net/index.ts';
import { startQueue, stopQueue, type Queue } from './platform/queue.ts';
import { createDeliveryQueue, startDeliveryWorker, type WebhookService } from './platform/webhooks/index.ts';

export const ROLES = ['jobs-api', 'mail-api', 'smtp', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export interface Running {
  db: Database;
  /** The queue, in the roles that enqueue or work (jobs-api, smtp, worker). */
  queue: Queue | undefined;
  /** The address each listener is bound to, e.g. `{ 'jobs-api': 'http://127.0.0.1:8080' }` (`metrics`: METRICS_PORT's). */
  addresses: Partial<Record<Role | 'metrics', string>>;
  /** Drains in-flight work, then closes the pool, then stops the embedded database (if ours). */
  stop(): Promise<void>;
}

/**
 * What tests and benchmarks replace in this wiring, so they start roles exactly as `domainkit` does but for
 * these. `domainkit` itself replaces nothing.
 */
export interface RoleOverrides {
  /**
   * The job sources (default: the program's, JOB_SOURCES): a source of a test's own, or an adapter swapped. The
   * settings must have been read with the same list (`loadConfig(env, sources)`).
   */
  sources?: readonly SourceDescriptor[];
  /** The DNS lookup of outbound HTTP to addresses users choose (ping, webhooks). */
  lookup?: LookupFunction;
  /** How often pg-boss's supervisor looks for entries of dead workers (default 10 s). */
  superviseIntervalSeconds?: number;
  /** The jobs engine's timings: heartbeats, leases, retry delays, pg-boss's options of the task queues. */
  engine?: EngineTimings;
}

// src/ and dist/ both sit one level below the package root.
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

export async function startRoles(config: Config, log: Logger, roles: readonly Role[], overrides: RoleOverrides = {}): Promise<Running> {
  const sources = sourceRegistry(overrides.sources ?? JOB_SOURCES);
  const unread = sources.names.filter((name) => !(name in config.jobs.sources));
  if (unread.length > 0) {
    throw new Error(`the settings were read without the sources ${unread.join(', ')}: give loadConfig the same sources`);
  }
  const db = await openDatabase(config, log);
  const apps: App[] = [];
  let smtp: SMTPServer | undefined;
  let queue: Queue | undefined;
  let outbound: Outbound | undefined;
  let providerHttp: Outbound | undefined;
  let engine: Engine | undefined;
  let sweeper: Sweeper | undefined;
  let leases: ClientLeases | undefined;
  let stopQueueDepth: (() => void) | undefined;
  const addresses: Running['addresses'] = {};

  const stop = async () => {
    // Listeners first: stop taking work and let in-flight requests finish while the database is still up.
    await Promise.allSettled([...apps.map((app) => app.close()), smtp ? closeSmtp(smtp) : undefined]);
    // The streams and sessions just ended gave their places back; what is left stops counting now.
    await leases?.stop();
    stopQueueDepth?.();
    await Promise.all([engine?.stop(), sweeper?.stop()]);
    if (queue) await stopQueue(queue);
    await Promise.all([outbound?.close(), providerHttp?.close()]);
    await db.close();
  };

  try {
    await migrate(db.url, log);
    const jobsService = roles.includes('jobs-api') || roles.includes('worker');
    if (jobsService) await ensureSourceColumns(db.pool, sources, log);
    const deps = { pool: db.pool, log, version: VERSION, metricsAccess: config.metrics.allow };
    const httpLimits = {
      requestTimeoutMs: config.http.requestTimeoutSeconds * 1000,
      maxConnections: config.http.maxConnections,
      trustedProxies: config.http.trustedProxies,
    };
    if (roles.includes('mail-api') || roles.includes('smtp')) {
      // Per-client bounds (MAIL_SSE_MAX_PER_CLIENT, …): one holder per process, its places counted in PostgreSQL.
      leases = await startClientLeases({ pool: db.pool, log, leaseSeconds: config.clientLeaseSeconds });
    }
    if (roles.includes('mail-api') || roles.includes('smtp')) await ensureDomains(db.pool, config.mail.domains);
    if (roles.includes('jobs-api') || roles.includes('worker') || roles.includes('smtp')) {
      // An API or a receiver alone only enqueues (jobs, webhook deliveries); workers supervise the queues.
      queue = await startQueue(db.url, log, {
        work: roles.includes('worker'),
        superviseIntervalSeconds: overrides.superviseIntervalSeconds,
      });
    }
    if (jobsService) stopQueueDepth = reportQueueDepth(db.pool, log, sources.names);
    if (roles.includes('jobs-api')) {
      const app = await buildJobsApp({
        ...deps,
        queue: queue!,
        sources,
        maxDomains: config.jobs.maxDomains,
        limits: config.jobs.sources,
        reuse: { defaultMaxAgeSeconds: config.jobs.cacheMaxAgeSeconds, shared: config.jobs.cacheShared },
        publicUrl: config.jobs.publicUrl,
        allowPrivateNetwork: config.allowPrivateNetwork,
        httpLimits,
        rateLimits: config.rateLimits.jobs,
      });
      apps.push(app);
      addresses['jobs-api'] = await app.listen({ host: config.host, port: config.jobs.port });
    }
    if (roles.includes('mail-api')) {
      const app = await buildMailApp({
        ...deps,
        anonTtlSeconds: config.mail.anonTtlSeconds,
        databaseUrl: db.url,
        ssePingSeconds: config.mail.ssePingSeconds,
        waitMaxSeconds: config.mail.waitMaxSeconds,
        leases,
        perClient: { sse: config.mail.sseMaxPerClient, wait: config.mail.waitMaxPerClient },
        jwt: { secret: config.mail.jwtSecret, jwksUrl: config.mail.jwksUrl },
        allowPrivateNetwork: config.allowPrivateNetwork,
        httpLimits,
        rateLimits: config.rateLimits.mail,
      });
      apps.push(app);
      addresses['mail-api'] = await app.listen({ host: config.host, port: config.mail.port });
    }
    if (roles.includes('smtp')) {
      const tls = config.mail.smtpTls;
      // Mail to an inbox with a webhook enqueues its delivery as it is stored: the queue must exist first.
      await createDeliveryQueue(queue!);
      smtp = createSmtpServer({
        queue: queue!,
        pool: db.pool,
        log,
        hostname: config.mail.domains[0] ?? 'localhost',
        maxMessageBytes: config.mail.maxMessageBytes,
        ...(tls ? { tls: { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) } } : {}),
        proxy: config.mail.smtpProxyProtocol,
        idleTimeoutMs: config.mail.smtpIdleTimeoutSeconds * 1000,
        maxSessionMs: config.mail.smtpMaxSessionSeconds * 1000,
        maxClients: config.mail.smtpMaxClients,
        leases,
        maxSessionsPerClient: config.mail.smtpMaxSessionsPerClient,
      });
      addresses.smtp = await listenSmtp(smtp, config.host, config.mail.smtpPort);
    }
    if (roles.includes('worker')) {
      outbound = createOutbound({ policy: policyFor(config.allowPrivateNetwork), lookup: overrides.lookup });
      providerHttp = createOutbound({ policy: allowEverything });
      const userAgent = `domainkit/${VERSION}`;
      await startDeliveryWorker({ pool: db.pool, queue: queue!, outbound, services: webhookServices(config), log, userAgent });
      engine = await startEngine({
        pool: db.pool,
        databaseUrl: db.url,
        queue: queue!,
        log,
        sources,
        limits: config.jobs.sources,
        settings: config.jobs.sourceSettings,
        http: { outbound, providerHttp, lookup: overrides.lookup, userAgent },
        publicUrl: config.jobs.publicUrl,
        timings: overrides.engine,
      });
      sweeper = startSweeper(db.pool, log, config.mail.sweepSeconds);
    }
    if (config.metrics.port !== undefined) {
      // For roles without an HTTP listener of their own (smtp, worker); it serves every metric of the process.
      const app = await buildMetricsApp({ pool: db.pool, log, version: VERSION, access: config.metrics.allow, limits: httpLimits });
      apps.push(app);
      addresses.metrics = await app.listen({ host: config.host, port: config.metrics.port });
    }
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  log.info({ roles, addresses }, 'ready');
  return { db, queue, addresses, stop };
}

/** The services whose webhooks this program sends. */
function webhookServices(config: Config): WebhookService[] {
  return [jobsWebhookService(config.jobs.webhookRetryDelaysMs), mailWebhookService(config.mail.webhookRetryDelaysMs)];
}

/** On the wildcard address SMTP listens on IPv6 and IPv4 both (`::`, dual-stack) where the host has IPv6. */
async function listenSmtp(server: SMTPServer, host: string, port: number): Promise<string> {
  if (host === '0.0.0.0') {
    try {
      return await listenSmtpOn(server, '::', port);
    } catch (err) {
      if (!['EAFNOSUPPORT', 'EADDRNOTAVAIL'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  }
  return listenSmtpOn(server, host, port);
}

function listenSmtpOn(server: SMTPServer, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.server.address();
      if (typeof address !== 'object' || !address) return resolve(String(address));
      resolve(`smtp://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`);
    });
  });
}

function closeSmtp(server: SMTPServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
