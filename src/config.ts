// Every setting of the program, read from the environment once and validated before anything starts.
// Names and defaults are documented in the README's settings table; how each text is parsed: config-parsers.ts.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import {
  baseUrl,
  boolean,
  ConfigError,
  domainList,
  durations,
  httpUrl,
  integer,
  jwtKey,
  maxAge,
  metricsAllow,
  nonEmpty,
  oneOf,
  port,
  postgresUrl,
  rate,
  rateLimit,
  readableFile,
  reader,
  secret,
  type Env,
} from './config-parsers.ts';
import { JOB_SOURCES, type SettingReader, type SourceDescriptor, type SourceLimits } from './jobs/index.ts';
import type { RateLimit } from './platform/http/index.ts';
import { PRIVATE_NETWORKS, type MetricsAccess } from './platform/metrics/index.ts';
import { parseTrustedProxies } from './platform/http/index.ts';

export { ConfigError, durations };

export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  host: string;
  logLevel: string;
  allowPrivateNetwork: boolean;
  /** Bounds of both HTTP listeners (ours): see docs/decisions.md, "Hostile input and resource bounds". */
  http: {
    requestTimeoutSeconds: number;
    maxConnections: number;
    /** TRUSTED_PROXIES: peers whose X-Forwarded-For names the client (platform/http/client-address.ts). */
    trustedProxies: string[];
  };
  /** CLIENT_LEASE_SECONDS: how long a dead process's places in the per-client bounds keep counting. */
  clientLeaseSeconds: number;
  /** Prometheus metrics (ours): who may read `/metrics`, and the port of a listener for it alone (unset: none). */
  metrics: {
    allow: MetricsAccess;
    port: number | undefined;
  };
  jobs: {
    port: number;
    publicUrl: string;
    webhookRetryDelaysMs: number[];
    maxDomains: number;
    /** JOBS_CACHE_MAX_AGE, seconds: how old a reused result may be for a job that names no max_age (0: never reused). */
    cacheMaxAgeSeconds: number;
    /** JOBS_CACHE_SHARED: whether a tenant's jobs may reuse results fetched by another tenant's jobs. */
    cacheShared: boolean;
    /** JOBS_<NAME>_CONCURRENCY and JOBS_<NAME>_RATE of each source, by name (defaults: its descriptor's). */
    sources: Record<string, SourceLimits>;
    /** Each source's own settings (credentials, base address: docs/providers.md), as its descriptor read them. */
    sourceSettings: Record<string, unknown>;
  };
  mail: {
    port: number;
    smtpPort: number;
    publicUrl: string;
    webhookRetryDelaysMs: number[];
    domains: string[];
    anonTtlSeconds: number;
    maxMessageBytes: number;
    ssePingSeconds: number;
    /** MAIL_WAIT_MAX_SECONDS: the longest `timeout` a wait for a message may ask for. */
    waitMaxSeconds: number;
    /** SMTP_TLS_CERT and SMTP_TLS_KEY (PEM files): STARTTLS is offered when both are set. */
    smtpTls: { certFile: string; keyFile: string } | undefined;
    smtpProxyProtocol: boolean;
    /** SMTP_IDLE_TIMEOUT_SECONDS, SMTP_MAX_SESSION_SECONDS, SMTP_MAX_CLIENTS (ours). */
    smtpIdleTimeoutSeconds: number;
    smtpMaxSessionSeconds: number;
    smtpMaxClients: number;
    /** Per-client bounds (0: none): MAIL_SSE_MAX_PER_CLIENT, MAIL_WAIT_MAX_PER_CLIENT, SMTP_MAX_SESSIONS_PER_CLIENT. */
    sseMaxPerClient: number;
    waitMaxPerClient: number;
    smtpMaxSessionsPerClient: number;
    sweepSeconds: number;
    jwtSecret: string | undefined;
    jwksUrl: string | undefined;
  };
  /** Request rate limits of both APIs (docs/operations.md, "Production profile"); undefined: off. */
  rateLimits: RateLimits;
}

export interface RateLimits {
  /** RATE_LIMIT_PROFILE: `mvp` (anonymous mail unlimited, as the mail API document's MVP) or `production`. */
  profile: 'mvp' | 'production';
  /** Anonymous mail per client address, accounts below Developer per account; Developer accounts per account. */
  mail: { anonymous?: RateLimit; anonymousCreate?: RateLimit; developer?: RateLimit; developerCreate?: RateLimit };
  /** Jobs API requests per tenant and per key; job creations per tenant. */
  jobs: { tenant?: RateLimit; key?: RateLimit; create?: RateLimit };
}

/**
 * Fills `env` from a `.env` file without overriding what the environment already says,
 * so a deployment's real environment always wins over a developer's file.
 */
export function loadDotEnv(env: Env = process.env, file = resolve('.env')): void {
  if (!existsSync(file)) return;
  const parsed = parseEnv(readFileSync(file, 'utf8'));
  for (const [key, value] of Object.entries(parsed)) {
    if (env[key] === undefined && value !== undefined) env[key] = value;
  }
}

/**
 * `sources`: the job sources whose settings are read (JOBS_<NAME>_CONCURRENCY, JOBS_<NAME>_RATE and each
 * source's own); the program's six unless a test or benchmark runs others (then give startRoles the same).
 */
export function loadConfig(env: Env = process.env, sources: readonly SourceDescriptor[] = JOB_SOURCES): Config {
  const read = reader(env);
  const jobsPort = read('JOBS_PORT', port, 8080);
  const mailPort = read('MAIL_PORT', port, 8081);
  const { limits, settings } = readSources(read, sources);
  const certFile = read('SMTP_TLS_CERT', readableFile, undefined);
  const keyFile = read('SMTP_TLS_KEY', readableFile, undefined);
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError(
      certFile === undefined ? 'SMTP_TLS_CERT' : 'SMTP_TLS_KEY',
      'SMTP_TLS_CERT and SMTP_TLS_KEY are set together or not at all',
    );
  }
  const smtpTls = certFile && keyFile ? { certFile, keyFile } : undefined;
  const jwtSecret = read('MAIL_JWT_SECRET', jwtKey, undefined);
  const jwksUrl = read('MAIL_JWKS_URL', httpUrl, undefined);
  if (jwtSecret !== undefined && jwksUrl !== undefined) {
    throw new ConfigError('MAIL_JWKS_URL', 'set either MAIL_JWT_SECRET or MAIL_JWKS_URL, not both');
  }
  return {
    databaseUrl: read('DATABASE_URL', postgresUrl, undefined),
    dataDir: resolve(read('DATA_DIR', nonEmpty, './.data')),
    host: read('HOST', nonEmpty, '0.0.0.0'),
    logLevel: read('LOG_LEVEL', oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
    allowPrivateNetwork: read('ALLOW_PRIVATE_NETWORK', boolean, false),
    http: {
      requestTimeoutSeconds: read('HTTP_REQUEST_TIMEOUT_SECONDS', integer(1, 3600), 30),
      // Above the 10,000 live-inbox streams one mail API process is measured with (bench:sse).
      maxConnections: read('HTTP_MAX_CONNECTIONS', integer(1, 1_000_000), 20_000),
      trustedProxies: read('TRUSTED_PROXIES', parseTrustedProxies, []),
    },
    clientLeaseSeconds: read('CLIENT_LEASE_SECONDS', integer(2, 3600), 30),
    metrics: {
      allow: read('METRICS_ALLOW', metricsAllow, PRIVATE_NETWORKS),
      port: read('METRICS_PORT', port, undefined),
    },
    jobs: {
      port: jobsPort,
      publicUrl: read('JOBS_PUBLIC_URL', baseUrl, `http://localhost:${jobsPort}`),
      webhookRetryDelaysMs: read('JOBS_WEBHOOK_RETRY_DELAYS', durations, [5_000, 30_000, 300_000]),
      maxDomains: read('JOBS_MAX_DOMAINS', integer(1, 100_000), 1000),
      cacheMaxAgeSeconds: read('JOBS_CACHE_MAX_AGE', maxAge, 0),
      cacheShared: read('JOBS_CACHE_SHARED', boolean, false),
      sources: limits,
      sourceSettings: settings,
    },
    mail: {
      port: mailPort,
      smtpPort: read('SMTP_PORT', port, 2525),
      publicUrl: read('MAIL_PUBLIC_URL', baseUrl, `http://localhost:${mailPort}`),
      webhookRetryDelaysMs: read('MAIL_WEBHOOK_RETRY_DELAYS', durations, [5_000, 25_000, 125_000]),
      domains: read('MAIL_DOMAINS', domainList, ['inbox.localhost']),
      anonTtlSeconds: read('MAIL_ANON_TTL_SECONDS', integer(1, 31_536_000), 3600),
      maxMessageBytes: read('MAIL_MAX_MESSAGE_BYTES', integer(1024, 1_073_741_824), 10_485_760),
      ssePingSeconds: read('MAIL_SSE_PING_SECONDS', integer(1, 3600), 15),
      waitMaxSeconds: read('MAIL_WAIT_MAX_SECONDS', integer(1, 300), 60),
      smtpTls,
      smtpProxyProtocol: read('SMTP_PROXY_PROTOCOL', boolean, false),
      smtpIdleTimeoutSeconds: read('SMTP_IDLE_TIMEOUT_SECONDS', integer(1, 3600), 60),
      smtpMaxSessionSeconds: read('SMTP_MAX_SESSION_SECONDS', integer(1, 86_400), 600),
      smtpMaxClients: read('SMTP_MAX_CLIENTS', integer(1, 1_000_000), 1000),
      sseMaxPerClient: read('MAIL_SSE_MAX_PER_CLIENT', integer(0, 1_000_000), 100),
      waitMaxPerClient: read('MAIL_WAIT_MAX_PER_CLIENT', integer(0, 1_000_000), 100),
      smtpMaxSessionsPerClient: read('SMTP_MAX_SESSIONS_PER_CLIENT', integer(0, 1_000_000), 20),
      sweepSeconds: read('MAIL_SWEEP_SECONDS', integer(1, 86_400), 60),
      jwtSecret,
      jwksUrl,
    },
    rateLimits: readRateLimits(read),
  };
}

/**
 * The production profile turns on the anonymous mail limits that the MVP has not, and the Developer tier's,
 * which the mail API document promises to be higher; the jobs API's are on in both. Each setting overrides.
 */
function readRateLimits(read: ReturnType<typeof reader>): RateLimits {
  const profile = read('RATE_LIMIT_PROFILE', oneOf(['mvp', 'production'] as const), 'mvp');
  const prod = profile === 'production';
  const limit = (points: number, seconds: number) => ({ points, seconds });
  const mail = {
    anonymous: read('MAIL_RATE_LIMIT_ANONYMOUS', rateLimit, prod ? limit(600, 60) : undefined),
    anonymousCreate: read('MAIL_RATE_LIMIT_ANONYMOUS_CREATE', rateLimit, prod ? limit(30, 600) : undefined),
    developer: read('MAIL_RATE_LIMIT_DEVELOPER', rateLimit, prod ? limit(6000, 60) : undefined),
    developerCreate: read('MAIL_RATE_LIMIT_DEVELOPER_CREATE', rateLimit, prod ? limit(600, 600) : undefined),
  };
  const perSecond = (l: RateLimit | undefined) => (l ? l.points / l.seconds : Number.POSITIVE_INFINITY);
  for (const [developer, anonymous, name] of [
    [mail.developer, mail.anonymous, 'MAIL_RATE_LIMIT_DEVELOPER'],
    [mail.developerCreate, mail.anonymousCreate, 'MAIL_RATE_LIMIT_DEVELOPER_CREATE'],
  ] as const) {
    if (developer && anonymous && perSecond(developer) < perSecond(anonymous)) {
      throw new ConfigError(name, 'the Developer tier must not be limited below anonymous callers (the mail API promises it higher)');
    }
  }
  return {
    profile,
    mail,
    jobs: {
      tenant: read('JOBS_RATE_LIMIT_TENANT', rateLimit, limit(12_000, 60)),
      key: read('JOBS_RATE_LIMIT_KEY', rateLimit, limit(6000, 60)),
      create: read('JOBS_RATE_LIMIT_CREATE', rateLimit, limit(600, 60)),
    },
  };
}

/** Each source's limits (its descriptor's defaults unless set) and its own settings, read by its descriptor. */
function readSources(read: ReturnType<typeof reader>, sources: readonly SourceDescriptor[]) {
  const sourceReader: SettingReader = {
    secret: (name) => read(name, secret, undefined),
    url: (name, fallback) => read(name, httpUrl, fallback),
    fail: (name, problem) => {
      throw new ConfigError(name, problem);
    },
  };
  const limits: Record<string, SourceLimits> = {};
  const settings: Record<string, unknown> = {};
  for (const source of sources) {
    const name = source.name.toUpperCase();
    limits[source.name] = {
      concurrency: read(`JOBS_${name}_CONCURRENCY`, integer(1, 10_000), source.defaults.concurrency),
      rate: read(`JOBS_${name}_RATE`, rate, source.defaults.rate),
    };
    settings[source.name] = source.readSettings(sourceReader);
  }
  return { limits, settings };
}
