// The one HTTP client for addresses a user chose (webhook receivers, the ping source). Every connection's
// address is checked when it is made: names are resolved inside the connection (so the address checked is the
// address connected to; no DNS-rebinding window) and IP literals are checked before any packet is sent.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import type { AddressPolicy } from './policy.ts';

export type OutboundErrorKind =
  | 'refused_address'
  | 'invalid_url'
  | 'dns'
  | 'connect'
  | 'tls'
  | 'timeout'
  | 'too_many_redirects'
  | 'network';

export class OutboundError extends Error {
  readonly kind: OutboundErrorKind;
  readonly chain: RedirectHop[];
  constructor(kind: OutboundErrorKind, message: string, chain: RedirectHop[] = []) {
    super(message);
    this.name = 'OutboundError';
    this.kind = kind;
    this.chain = chain;
  }
}

class RefusedAddress extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';
}

export interface RedirectHop {
  url: string;
  status: number;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Limit for the whole exchange, body included. */
  timeoutMs: number;
  /** Redirects to follow (each hop checked like the first); 0 = return the 3xx as it is. */
  maxRedirects?: number;
  /** Bytes of response body kept; the rest is not read. */
  maxBodyBytes?: number;
  /** Cancels the exchange early (a stopping worker); the timeout applies either way. */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  truncated: boolean;
  /** The URL of the final response, and the redirects that led to it. */
  url: string;
  chain: RedirectHop[];
  /** Milliseconds from sending the final request to its response headers. */
  firstByteMs: number;
}

export interface Outbound {
  request(url: string, options: OutboundRequest): Promise<OutboundResponse>;
  close(): Promise<void>;
}

export interface OutboundOptions {
  policy: AddressPolicy;
  /** Name resolution (default: the system resolver, `dns.lookup`); tests map names to local servers. */
  lookup?: LookupFunction;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const MAX_BODY_BYTES = 64 * 1024;

export function createOutbound(options: OutboundOptions): Outbound {
  const agent = new Agent({ connect: guardedConnector(options), connections: 64, keepAliveTimeout: 4_000 });

  async function once(url: URL, init: OutboundRequest, method: string, body: OutboundRequest['body'], signal: AbortSignal) {
    const started = performance.now();
    const response = await request(url, {
      dispatcher: agent,
      method: method as 'GET',
      headers: init.headers ?? {},
      ...(body === undefined ? {} : { body }),
      signal,
    });
    return { response, firstByteMs: Math.round(performance.now() - started) };
  }

  return {
    async request(address, init) {
      const timeout = AbortSignal.timeout(init.timeoutMs);
      const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
      const chain: RedirectHop[] = [];
      let url = parseHttpUrl(address, chain);
      let method: string = init.method ?? 'GET';
      let body = init.body;
      try {
        for (;;) {
          const { response, firstByteMs } = await once(url, init, method, body, signal);
          const location = response.headers.location;
          if (REDIRECTS.has(response.statusCode) && typeof location === 'string' && chain.length < (init.maxRedirects ?? 0)) {
            await response.body.dump();
            chain.push({ url: url.toString(), status: response.statusCode });
            url = parseHttpUrl(new URL(location, url).toString(), chain);
            if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
              method = 'GET';
              body = undefined;
            }
            continue;
          }
          if (REDIRECTS.has(response.statusCode) && init.maxRedirects && chain.length >= init.maxRedirects) {
            await response.body.dump();
            throw new OutboundError('too_many_redirects', `more than ${init.maxRedirects} redirects`, chain);
          }
          const { bytes, truncated } = await readCapped(response.body, init.maxBodyBytes ?? MAX_BODY_BYTES);
          return {
            status: response.statusCode,
            headers: response.headers,
            body: bytes,
            truncated,
            url: url.toString(),
            chain,
            firstByteMs,
          };
        }
      } catch (err) {
        throw classify(err, chain, signal);
      }
    },
    close: () => agent.close(),
  };
}

function parseHttpUrl(address: string, chain: RedirectHop[]): URL {
  const url = URL.parse(address);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new OutboundError('invalid_url', `not an http(s) URL: ${address}`, chain);
  }
  return url;
}

/** Wraps undici's connector: IP literals are checked up front, names through a checking `lookup`. */
function guardedConnector(options: OutboundOptions): buildConnector.connector {
  const base = buildConnector({ lookup: guardedLookup(options.policy, options.lookup ?? (dnsLookup as LookupFunction)), timeout: 10_000 });
  return (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !options.policy(host)) {
      callback(new RefusedAddress(`address ${host} is not a public unicast address`), null);
      return;
    }
    base(connectOptions, (err, socket) => {
      // Belt and braces: the peer the socket reached must pass too.
      if (!err && socket?.remoteAddress && !options.policy(socket.remoteAddress)) {
        socket.destroy();
        callback(new RefusedAddress(`address ${socket.remoteAddress} is not a public unicast address`), null);
        return;
      }
      if (err) callback(err, null);
      else callback(null, socket!);
    });
  };
}

/** A `lookup` for net.connect that drops refused addresses, and fails when none is left. */
export function guardedLookup(policy: AddressPolicy, resolve: LookupFunction): LookupFunction {
  return ((hostname: string, opts: LookupOneOptions | LookupAllOptions, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = (addresses as unknown as LookupAddress[]).filter((a) => policy(a.address));
      if (list.length === 0) {
        const shown = (addresses as unknown as LookupAddress[]).map((a) => a.address).join(', ');
        return callback(new RefusedAddress(`${hostname} resolves only to refused addresses (${shown})`));
      }
      if (opts.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  }) as LookupFunction;
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, max: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = max - size;
    if (chunk.length >= room) {
      chunks.push(chunk.subarray(0, room));
      size = max;
      body.destroy();
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|EPROTO)/;

function classify(err: unknown, chain: RedirectHop[], signal: AbortSignal): OutboundError {
  if (err instanceof OutboundError) return err;
  const seen = new Set<unknown>();
  // undici wraps the cause; autoSelectFamily raises an AggregateError of per-address failures.
  let e = err as { code?: string; name?: string; message?: string; cause?: unknown; errors?: unknown[] } | undefined;
  while (e && !seen.has(e)) {
    seen.add(e);
    const code = e.code ?? '';
    if (e instanceof RefusedAddress || code === 'ERR_ADDRESS_REFUSED')
      return new OutboundError('refused_address', e.message ?? 'refused', chain);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA') {
      return new OutboundError('dns', `name not resolved (${code})`, chain);
    }
    if (
      code === 'UND_ERR_CONNECT_TIMEOUT' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      e.name === 'TimeoutError'
    ) {
      return new OutboundError('timeout', 'timed out', chain);
    }
    if (TLS_CODE.test(code)) return new OutboundError('tls', `TLS failed (${code})`, chain);
    if (['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET'].includes(code)) {
      return new OutboundError('connect', `connection failed (${code})`, chain);
    }
    e = (e.cause ?? e.errors?.[0]) as typeof e;
  }
  if (signal.aborted) return new OutboundError('timeout', 'timed out', chain);
  return new OutboundError('network', (err as Error)?.message ?? 'network error', chain);
}
