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
  metricsAllow,
  nonEmpty,
  oneOf,
  port,
  postgresUrl,
  rate,
  readableFile,
  reader,
  secret,
  type Env,
} from './config-parsers.ts';
import { PRIVATE_NETWORKS, type MetricsAccess } from './platform/metrics/index.ts';

export { ConfigError, durations };

export const JOB_SOURCES = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'] as const;
export type JobSource = (typeof JOB_SOURCES)[number];

/** Concurrency (in flight, all workers) and rate (requests per second, 0 = no rate limit) of each source. */
const SOURCE_DEFAULTS: Record<JobSource, { concurrency: number; rate: number }> = {
  seokicks: { concurrency: 2, rate: 0 },
  moz: { concurrency: 1, rate: 0.1 },
  ahrefs_backlinks: { concurrency: 2, rate: 0 },
  ahrefs_traffic: { concurrency: 2, rate: 0 },
  wayback: { concurrency: 1, rate: 0.4 },
  ping: { concurrency: 50, rate: 0 },
};

export interface SourceLimits {
  concurrency: number;
  rate: number;
}

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
  };
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
    sources: Record<JobSource, SourceLimits>;
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
    /** SMTP_TLS_CERT and SMTP_TLS_KEY (PEM files): STARTTLS is offered when both are set. */
    smtpTls: { certFile: string; keyFile: string } | undefined;
    smtpProxyProtocol: boolean;
    /** SMTP_IDLE_TIMEOUT_SECONDS, SMTP_MAX_SESSION_SECONDS, SMTP_MAX_CLIENTS (ours). */
    smtpIdleTimeoutSeconds: number;
    smtpMaxSessionSeconds: number;
    smtpMaxClients: number;
    sweepSeconds: number;
    jwtSecret: string | undefined;
    jwksUrl: string | undefined;
  };
  providers: {
    seokicks: { apiKey: string | undefined; baseUrl: string };
    moz: { token: string | undefined; accessId: string | undefined; secretKey: string | undefined; baseUrl: string };
    ahrefs: { apiKey: string | undefined; baseUrl: string };
    wayback: { baseUrl: string };
  };
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

export function loadConfig(env: Env = process.env): Config {
  const read = reader(env);
  const jobsPort = read('JOBS_PORT', port, 8080);
  const mailPort = read('MAIL_PORT', port, 8081);
  const moz = {
    token: read('MOZ_TOKEN', secret, undefined),
    accessId: read('MOZ_ACCESS_ID', secret, undefined),
    secretKey: read('MOZ_SECRET_KEY', secret, undefined),
    baseUrl: read('MOZ_BASE_URL', httpUrl, 'https://lsapi.seomoz.com'),
  };
  if ((moz.accessId === undefined) !== (moz.secretKey === undefined)) {
    const missing = moz.accessId === undefined ? 'MOZ_ACCESS_ID' : 'MOZ_SECRET_KEY';
    throw new ConfigError(missing, 'MOZ_ACCESS_ID and MOZ_SECRET_KEY are set together or not at all');
  }
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
  const sources = Object.fromEntries(
    JOB_SOURCES.map((source) => {
      const name = source.toUpperCase();
      const defaults = SOURCE_DEFAULTS[source];
      return [
        source,
        {
          concurrency: read(`JOBS_${name}_CONCURRENCY`, integer(1, 10_000), defaults.concurrency),
          rate: read(`JOBS_${name}_RATE`, rate, defaults.rate),
        },
      ];
    }),
  ) as Record<JobSource, SourceLimits>;

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
    },
    metrics: {
      allow: read('METRICS_ALLOW', metricsAllow, PRIVATE_NETWORKS),
      port: read('METRICS_PORT', port, undefined),
    },
    jobs: {
      port: jobsPort,
      publicUrl: read('JOBS_PUBLIC_URL', baseUrl, `http://localhost:${jobsPort}`),
      webhookRetryDelaysMs: read('JOBS_WEBHOOK_RETRY_DELAYS', durations, [5_000, 30_000, 300_000]),
      maxDomains: read('JOBS_MAX_DOMAINS', integer(1, 100_000), 1000),
      sources,
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
      smtpTls,
      smtpProxyProtocol: read('SMTP_PROXY_PROTOCOL', boolean, false),
      smtpIdleTimeoutSeconds: read('SMTP_IDLE_TIMEOUT_SECONDS', integer(1, 3600), 60),
      smtpMaxSessionSeconds: read('SMTP_MAX_SESSION_SECONDS', integer(1, 86_400), 600),
      smtpMaxClients: read('SMTP_MAX_CLIENTS', integer(1, 1_000_000), 1000),
      sweepSeconds: read('MAIL_SWEEP_SECONDS', integer(1, 86_400), 60),
      jwtSecret,
      jwksUrl,
    },
    providers: {
      seokicks: {
        apiKey: read('SEOKICKS_API_KEY', secret, undefined),
        baseUrl: read('SEOKICKS_BASE_URL', httpUrl, 'https://en.seokicks.de'),
      },
      moz,
      ahrefs: {
        apiKey: read('AHREFS_API_KEY', secret, undefined),
        baseUrl: read('AHREFS_BASE_URL', httpUrl, 'https://api.ahrefs.com/v3'),
      },
      wayback: { baseUrl: read('WAYBACK_BASE_URL', httpUrl, 'https://web.archive.org') },
    },
  };
}
