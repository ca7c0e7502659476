// Every setting of the program, read from the environment once and validated before anything starts.
// Names and defaults are part of the contract (shared/spec/decisions.md, "Settings and commands").
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { normaliseDomain } from './platform/net/hostname.ts';

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

/** A setting that failed validation; `message` is one line that names it. */
export class ConfigError extends Error {
  readonly setting: string;
  constructor(setting: string, problem: string, value?: string) {
    const shown = value === undefined ? '' : `=${JSON.stringify(value)}`;
    super(`invalid setting ${setting}${shown}: ${problem}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}

type Env = Record<string, string | undefined>;

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
    throw new ConfigError(certFile === undefined ? 'SMTP_TLS_CERT' : 'SMTP_TLS_KEY', 'SMTP_TLS_CERT and SMTP_TLS_KEY are set together or not at all');
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
      anonTtlSeconds: read('MAIL_ANON_TTL_SECONDS', integer(60, 31_536_000), 3600),
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

// A parser turns the raw text into a value or returns a problem description (never throws).
type Parser<T> = (raw: string) => { value: T } | { problem: string };

function reader(env: Env) {
  return <T, D extends T | undefined>(name: string, parse: Parser<T>, fallback: D): T | D => {
    const raw = env[name];
    // An empty assignment (`JOBS_PORT=`) means "use the default", as most tools treat it.
    if (raw === undefined || raw.trim() === '') return fallback;
    const result = parse(raw.trim());
    if ('problem' in result) throw new ConfigError(name, result.problem, isSecretName(name) ? undefined : raw);
    return result.value;
  };
}

function isSecretName(name: string): boolean {
  return /KEY|TOKEN|SECRET|PASSWORD|DATABASE_URL/.test(name);
}

function integer(min: number, max: number): Parser<number> {
  return (raw) => {
    if (!/^-?\d+$/.test(raw)) return { problem: `expected an integer from ${min} to ${max}` };
    const n = Number(raw);
    return n >= min && n <= max ? { value: n } : { problem: `expected an integer from ${min} to ${max}` };
  };
}

const port = integer(0, 65_535);
const nonEmpty: Parser<string> = (raw) => ({ value: raw });
const secret: Parser<string> = (raw) => ({ value: raw });
/** A path to a file this process can read now (checked at start, so a typo fails loudly). */
const readableFile: Parser<string> = (raw) => {
  const path = resolve(raw);
  try {
    readFileSync(path);
    return { value: path };
  } catch (err) {
    return { problem: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  }
};

const boolean: Parser<boolean> = (raw) => {
  const v = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return { value: true };
  if (['false', '0', 'no', 'off'].includes(v)) return { value: false };
  return { problem: 'expected true or false' };
};

function oneOf<T extends string>(allowed: readonly T[]): Parser<T> {
  return (raw) =>
    (allowed as readonly string[]).includes(raw)
      ? { value: raw as T }
      : { problem: `expected one of ${allowed.join(', ')}` };
}

const rate: Parser<number> = (raw) => {
  const n = Number(raw);
  return /^\d+(\.\d+)?$/.test(raw) && Number.isFinite(n)
    ? { value: n }
    : { problem: 'expected requests per second as a number >= 0 (0 = no rate limit)' };
};

const httpUrl: Parser<string> = (raw) => {
  const url = URL.parse(raw);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return { problem: 'expected an absolute http(s) URL' };
  }
  return { value: raw.replace(/\/+$/, '') };
};

const baseUrl: Parser<string> = (raw) => {
  const parsed = httpUrl(raw);
  if ('problem' in parsed) return parsed;
  const url = new URL(parsed.value);
  if (url.search || url.hash) return { problem: 'expected a base URL without query or fragment' };
  return parsed;
};

const postgresUrl: Parser<string> = (raw) => {
  const url = URL.parse(raw);
  return url && (url.protocol === 'postgres:' || url.protocol === 'postgresql:')
    ? { value: raw }
    : { problem: 'expected a postgres:// or postgresql:// connection string' };
};

const jwtKey: Parser<string> = (raw) =>
  Buffer.byteLength(raw) >= 32 ? { value: raw } : { problem: 'an HS256 secret needs at least 32 bytes' };

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `5s,30s,5m`: the waits between webhook attempts. */
export const durations: Parser<number[]> = (raw) => {
  const out: number[] = [];
  for (const part of raw.split(',')) {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(part.trim());
    if (!match) return { problem: `"${part.trim()}" is not a duration such as 500ms, 5s, 5m or 1h` };
    out.push(Math.round(Number(match[1]) * UNIT_MS[match[2] as string]!));
  }
  return { value: out };
};

const domainList: Parser<string[]> = (raw) => {
  const names: string[] = [];
  for (const entry of raw.split(',').filter((d) => d.trim() !== '')) {
    const result = normaliseDomain(entry);
    if (!result.ok) return { problem: `"${entry.trim()}" ${result.reason}` };
    names.push(result.domain);
  }
  if (names.length === 0) return { problem: 'expected at least one domain' };
  return { value: [...new Set(names)] };
};
