// How a setting's text becomes a value: the reader, the parsers config.ts uses, and the one-line error that
// names a setting. Each parser returns the value or a problem; the reader turns a problem into a ConfigError.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseMaxAge } from './jobs/index.ts';
import { parseMetricsAllow, type MetricsAccess } from './platform/metrics/index.ts';
import { normaliseDomain } from './platform/net/index.ts';

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

export type Env = Record<string, string | undefined>;

// A parser turns the raw text into a value or returns a problem description (never throws).
type Parser<T> = (raw: string) => { value: T } | { problem: string };

export function reader(env: Env) {
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

export function integer(min: number, max: number): Parser<number> {
  return (raw) => {
    if (!/^-?\d+$/.test(raw)) return { problem: `expected an integer from ${min} to ${max}` };
    const n = Number(raw);
    return n >= min && n <= max ? { value: n } : { problem: `expected an integer from ${min} to ${max}` };
  };
}

export const port = integer(0, 65_535);
export const nonEmpty: Parser<string> = (raw) => ({ value: raw });
export const secret: Parser<string> = (raw) => ({ value: raw });
/** A path to a file this process can read now (checked at start, so a typo fails loudly). */
export const readableFile: Parser<string> = (raw) => {
  const path = resolve(raw);
  try {
    readFileSync(path);
    return { value: path };
  } catch (err) {
    return { problem: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  }
};

export const boolean: Parser<boolean> = (raw) => {
  const v = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return { value: true };
  if (['false', '0', 'no', 'off'].includes(v)) return { value: false };
  return { problem: 'expected true or false' };
};

export function oneOf<T extends string>(allowed: readonly T[]): Parser<T> {
  return (raw) =>
    (allowed as readonly string[]).includes(raw) ? { value: raw as T } : { problem: `expected one of ${allowed.join(', ')}` };
}

export const rate: Parser<number> = (raw) => {
  const n = Number(raw);
  return /^\d+(\.\d+)?$/.test(raw) && Number.isFinite(n)
    ? { value: n }
    : { problem: 'expected requests per second as a number >= 0 (0 = no rate limit)' };
};

export const httpUrl: Parser<string> = (raw) => {
  const url = URL.parse(raw);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return { problem: 'expected an absolute http(s) URL' };
  }
  return { value: raw.replace(/\/+$/, '') };
};

export const baseUrl: Parser<string> = (raw) => {
  const parsed = httpUrl(raw);
  if ('problem' in parsed) return parsed;
  const url = new URL(parsed.value);
  if (url.search || url.hash) return { problem: 'expected a base URL without query or fragment' };
  return parsed;
};

export const postgresUrl: Parser<string> = (raw) => {
  const url = URL.parse(raw);
  return url && (url.protocol === 'postgres:' || url.protocol === 'postgresql:')
    ? { value: raw }
    : { problem: 'expected a postgres:// or postgresql:// connection string' };
};

export const jwtKey: Parser<string> = (raw) =>
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

const WINDOW_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `600/1m`: requests per fixed window (s, m, h or d); `off` (or 0) for none. */
export const rateLimit: Parser<{ points: number; seconds: number } | undefined> = (raw) => {
  if (raw === 'off' || raw === '0') return { value: undefined };
  const match = /^(\d{1,9})\/(\d{0,6})(s|m|h|d)$/.exec(raw);
  const points = Number(match?.[1]);
  const seconds = Number(match?.[2] || 1) * WINDOW_SECONDS[match?.[3] ?? 's']!;
  if (!match || points < 1 || seconds < 1 || seconds > 86_400) {
    return { problem: 'expected requests per window such as 600/1m, 30/10m or 5000/1h (window at most 1d), or off' };
  }
  return { value: { points, seconds } };
};

/** JOBS_CACHE_MAX_AGE: as a job's `max_age` (jobs/max-age.ts). */
export const maxAge: Parser<number> = (raw) => {
  const parsed = parseMaxAge(raw);
  return parsed.ok ? { value: parsed.seconds } : { problem: parsed.reason };
};

export const domainList: Parser<string[]> = (raw) => {
  const names: string[] = [];
  for (const entry of raw.split(',').filter((d) => d.trim() !== '')) {
    const result = normaliseDomain(entry);
    if (!result.ok) return { problem: `"${entry.trim()}" ${result.reason}` };
    names.push(result.domain);
  }
  if (names.length === 0) return { problem: 'expected at least one domain' };
  return { value: [...new Set(names)] };
};

/** METRICS_ALLOW: `private`, `all`, `none`, or comma-separated CIDRs (platform/metrics/access.ts). */
export const metricsAllow: Parser<MetricsAccess> = parseMetricsAllow;
