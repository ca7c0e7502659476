// What the provider adapters share: one HTTP call to a provider, and the mapping of its HTTP outcome onto
// the error classes of result rows. Decide on the status first, the body second (docs/providers.md,
// "Error classes").
import { OutboundError, type Outbound, type OutboundResponse } from '../../platform/net/index.ts';
import { Compile } from 'typebox/compile';
import type { TSchema, Static } from 'typebox';
import type { ErrorCode, Outcome } from './source.ts';

export type Failure = Extract<Outcome, { ok: false }>;

type UpstreamResponse = Pick<OutboundResponse, 'status' | 'headers'> & { text: string };

const TIMEOUT_MS = 30_000;
const MAX_BODY = 8 * 1024 * 1024;

/**
 * One request through the platform's outbound client (the provider client: hosts come from the operator's
 * settings, so its address policy lets everything through); failures to get an answer come back as a
 * transient `upstream_unavailable`.
 */
export async function call(
  http: Outbound,
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
): Promise<UpstreamResponse | Failure> {
  try {
    const res = await http.request(url, { ...init, timeoutMs: TIMEOUT_MS, maxBodyBytes: MAX_BODY });
    if (res.truncated) return fail('upstream_bad_response', `the response is larger than ${MAX_BODY} bytes`);
    return { status: res.status, headers: res.headers, text: res.body.toString('utf8') };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return fail('upstream_unavailable', err.message, { error: err.kind }, {});
  }
}

export function isFailure(value: UpstreamResponse | Failure): value is Failure {
  return 'ok' in value;
}

export function fail(code: ErrorCode, message: string, raw?: unknown, transient?: Failure['transient']): Failure {
  return { ok: false, code, message, ...(raw === undefined ? {} : { raw }), ...(transient ? { transient } : {}) };
}

/** The common status rules; `undefined` for 2xx (the body decides). Providers add their own before these. */
export function byStatus(res: UpstreamResponse, provider: string): Failure | undefined {
  const raw = bodyOf(res.text);
  const said = typeof raw === 'object' && raw && 'error' in raw ? `: ${String((raw as { error: unknown }).error)}` : '';
  if (res.status >= 200 && res.status < 300) return undefined;
  if (res.status === 401) return fail('upstream_auth', `${provider} refused the credentials (401)${said}`, raw);
  if (res.status === 402 || res.status === 403)
    return fail('upstream_quota', `${provider} refused the request for the plan or quota (${res.status})${said}`, raw);
  if (res.status === 404) return fail('upstream_no_data', `${provider} has no data for this domain (404)${said}`, raw);
  if (res.status === 429)
    return fail('upstream_rate_limited', `${provider} is throttling requests (429)${said}`, raw, { retryAfterMs: retryAfterMs(res) });
  if (res.status >= 500) return fail('upstream_unavailable', `${provider} failed (${res.status})${said}`, raw, {});
  return fail('upstream_bad_response', `${provider} answered ${res.status}${said}`, raw);
}

/** The body as JSON when it is JSON, else the text itself (kept in `raw` either way). */
function bodyOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { body: text.slice(0, 4096) };
  }
}

/** Parses and checks a JSON body against a schema; a wrong shape is `upstream_bad_response`, never zeros. */
export function parseBody<T extends TSchema>(
  provider: string,
  text: string,
  schema: T,
): { ok: true; value: Static<T>; raw: unknown } | Failure {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return fail('upstream_bad_response', `${provider} answered with a body that is not JSON`, { body: text.slice(0, 4096) });
  }
  const check = compiled(schema);
  if (!check.Check(raw)) {
    const first = check.Errors(raw)[0];
    return fail(
      'upstream_bad_response',
      `${provider} answered with an unexpected shape${first ? ` (${first.instancePath || '/'} ${first.message})` : ''}`,
      raw,
    );
  }
  return { ok: true, value: raw as Static<T>, raw };
}

const validators = new WeakMap<TSchema, ReturnType<typeof Compile>>();
function compiled(schema: TSchema) {
  let v = validators.get(schema);
  if (!v) {
    v = Compile(schema);
    validators.set(schema, v);
  }
  return v;
}

/** Retry-After in seconds or as an HTTP date, capped at 60 s. */
export function retryAfterMs(res: UpstreamResponse): number | undefined {
  const value = res.headers['retry-after'];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = Number(text);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(text) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 60_000) : undefined;
}

/** "14853" → 14853; anything else → undefined. */
export function digits(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}
