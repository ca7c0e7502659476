// A fake provider: a local HTTP server with a request log, optional latency, and faults chosen by the
// domain a request is about, so tests in any process can ask for one by naming a domain:
//   auth-fail.*  → 401        quota.*   → 403         ratelimit.* → 429 with Retry-After (1 s by default)
//   ratelimit-once.* → 429 with Retry-After once, then a normal answer
//   flaky.*      → 500 once, then a normal answer     malformed.* → 200 with a body of the wrong shape
//   garbage.*    → 200 with a body that is not JSON   nodata.*    → the provider's "nothing known"
//   slow.*       → a normal answer after 2 s
// Each fake bills as its provider does (docs/providers.md, "Cost") and counts what it billed: `usage()`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'auth-fail' | 'quota' | 'ratelimit' | 'ratelimit-once' | 'flaky' | 'malformed' | 'garbage' | 'nodata' | 'slow';
const FAULTS: Fault[] = ['auth-fail', 'quota', 'ratelimit', 'ratelimit-once', 'flaky', 'malformed', 'garbage', 'nodata', 'slow'];

export interface LoggedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
  /** Requests in flight at this server when this one arrived (itself included). */
  concurrent: number;
  /** Whether an answer was sent (not for a request its client abandoned). */
  answered: boolean;
  /** What the provider billed for it, in its unit, once answered: 0 for refusals and free providers. */
  units: number;
}

/** What a fake answered and billed. */
export interface Usage {
  calls: number;
  units: number;
}

/** What a provider bills for a 2xx answer of its own, when the answer does not say (`Handled.units`). */
export type Price = (req: LoggedRequest) => number;

export interface FakeOptions {
  /** Added to every answer (default 0). */
  latencyMs?: number;
  /** The Retry-After of every 429 (default 1). */
  retryAfterSeconds?: number;
}

export interface Fake {
  url: string;
  requests: LoggedRequest[];
  /** Requests whose client closed the connection before the answer was sent (an aborted call). */
  abandoned: LoggedRequest[];
  /** The requests answered and the units billed, of every request or of those `which` picks (one endpoint). */
  usage(which?: (req: LoggedRequest) => boolean): Usage;
  close(): Promise<void>;
}

export interface Handled {
  status: number;
  body: unknown;
  /** Sent as is when a string; JSON otherwise. */
  contentType?: string;
  headers?: Record<string, string>;
  /** What the answer bills; absent: the fake's price for a 2xx, nothing for any other status. */
  units?: number;
}

export type Handler = (req: LoggedRequest) => Handled;

export function faultOf(domain: string): Fault | undefined {
  return FAULTS.find((f) => domain.startsWith(`${f}.`) || domain.includes(`.${f}.`));
}

/** The generic answer for a fault; `undefined` lets the provider answer (normal, malformed, nodata). */
export function faultAnswer(fault: Fault | undefined, seen: Map<string, number>, key: string): Handled | undefined {
  switch (fault) {
    case 'auth-fail':
      return { status: 401, body: { error: 'invalid api key' } };
    case 'quota':
      return { status: 403, body: { error: 'quota exceeded for this plan' } };
    case 'ratelimit':
      return TOO_MANY;
    case 'ratelimit-once':
      return firstTime(seen, key) ? TOO_MANY : undefined;
    case 'flaky':
      return firstTime(seen, key) ? { status: 500, body: { error: 'internal error' } } : undefined;
    case 'garbage':
      return { status: 200, body: '<html>Service temporarily unavailable</html>', contentType: 'text/html' };
    default:
      return undefined;
  }
}

const TOO_MANY: Handled = { status: 429, body: { error: 'too many requests' }, headers: { 'retry-after': '1' } };

function firstTime(seen: Map<string, number>, key: string): boolean {
  const n = (seen.get(key) ?? 0) + 1;
  seen.set(key, n);
  return n === 1;
}

export async function startFake(handler: Handler, options: FakeOptions = {}, price?: Price): Promise<Fake> {
  const requests: LoggedRequest[] = [];
  const abandoned: LoggedRequest[] = [];
  let inFlight = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const logged: LoggedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        concurrent: inFlight,
        answered: false,
        units: 0,
      };
      requests.push(logged);
      let answer: Handled;
      try {
        answer = handler(logged);
      } catch (err) {
        answer = { status: 500, body: { error: (err as Error).message } };
      }
      const slow = [...url.searchParams.values(), logged.body].some((v) => v.includes('slow.'));
      const answering = setTimeout(
        () => {
          const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
          const headers: Record<string, string> = { 'content-type': answer.contentType ?? 'application/json', ...answer.headers };
          if (answer.status === 429 && options.retryAfterSeconds !== undefined) headers['retry-after'] = String(options.retryAfterSeconds);
          const billed = answer.status >= 200 && answer.status < 300 ? (price?.(logged) ?? 0) : 0;
          Object.assign(logged, { answered: true, units: answer.units ?? billed });
          res.writeHead(answer.status, headers);
          res.end(text);
        },
        (options.latencyMs ?? 0) + (slow ? 2000 : 0),
      );
      res.on('close', () => {
        if (res.writableEnded) return;
        clearTimeout(answering);
        abandoned.push(logged);
      });
    });
    res.on('close', () => inFlight--);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    abandoned,
    usage: (which = () => true) => {
      const answered = requests.filter((r) => r.answered && which(r));
      return { calls: answered.length, units: answered.reduce((sum, r) => sum + r.units, 0) };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A deterministic number in [min, max] for a domain and a field: the same every run. */
export function valueFor(domain: string, field: string, min: number, max: number): number {
  let h = 2166136261;
  for (const c of `${field}:${domain}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return min + ((h >>> 0) % (max - min + 1));
}
