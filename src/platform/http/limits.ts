// How long a client may take to send a request, how long an idle socket is kept, and how many sockets one
// listener holds. Fastify's own defaults leave a request that dribbles its body in forever (requestTimeout 0)
// and sockets idle without limit (connectionTimeout 0); these bound both. Long-lived streams (SSE) are not
// requests in progress once their headers are read, and they turn their socket's idle timeout off themselves.
import type { ServerOptions } from 'node:http';

export interface HttpLimits {
  /** HTTP_REQUEST_TIMEOUT_SECONDS: the headers and the body must both have arrived within this. */
  requestTimeoutMs: number;
  /** HTTP_MAX_CONNECTIONS: sockets one listener holds at once; further ones are closed on accept. */
  maxConnections: number;
  /**
   * TRUSTED_PROXIES: peers whose X-Forwarded-For names the client (client-address.ts); none when unset. A
   * listener's setting like the two above, so it travels with them to every app.
   */
  trustedProxies?: readonly string[] | undefined;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = { requestTimeoutMs: 30_000, maxConnections: 20_000 };

/** A socket with no byte either way for this long is closed (a client that stopped reading a response). */
const IDLE_SOCKET_MS = 120_000;

/** Fastify's server options for these limits. */
export function serverOptions(limits: HttpLimits): { requestTimeout: number; connectionTimeout: number; http: ServerOptions } {
  return {
    requestTimeout: limits.requestTimeoutMs,
    // Never shorter than the request timeout: a slow upload is the request timeout's business.
    connectionTimeout: Math.max(IDLE_SOCKET_MS, limits.requestTimeoutMs),
    http: {
      // Node checks both timeouts on a timer (30 s by default, which would double a short timeout); a tenth of
      // the timeout keeps the closing within 10 % of it, and the check only walks requests still arriving.
      headersTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(5_000, Math.max(100, Math.floor(limits.requestTimeoutMs / 10))),
    },
  };
}
