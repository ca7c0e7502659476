// A body over the limit that its Content-Length announces is refused before it is read. Fastify's own refusal
// asks for the connection to be closed, and Node then closes it while the client is still sending: a client that
// writes its whole body before it reads (Python's http.client and requests, many SDKs) gets a broken pipe or a
// reset instead of the 413. Here the 413 goes out on a connection that stays open, and the body is read and
// thrown away as it arrives, so the client finishes sending and then reads the problem. A client that sends more
// than DISCARD_LIMIT_BYTES is cut off; HTTP_REQUEST_TIMEOUT_SECONDS bounds how long the discarding may take.
import type { FastifyRequest } from 'fastify';
import { Problem } from './problem.ts';

/** How much of a refused body is read and discarded before the connection is cut. */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * A `preParsing` hook (after the routes' credential checks, so a request without them is still 401): the 413
 * problem for an announced body over the route's limit, the body discarded.
 */
export async function refuseOversizedBody<T>(request: FastifyRequest, _reply: unknown, payload: T): Promise<T> {
  const announced = request.headers['content-length'];
  if (announced === undefined) return payload; // chunked bodies are counted as they are parsed
  const length = Number(announced);
  const limit = request.routeOptions.bodyLimit;
  if (!Number.isSafeInteger(length) || limit === undefined || length <= limit) return payload;
  discard(request);
  throw new Problem('payload_too_large', `the request body (${length} bytes) exceeds the limit of ${limit} bytes`);
}

function discard(request: FastifyRequest): void {
  const raw = request.raw;
  let seen = 0;
  raw.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DISCARD_LIMIT_BYTES) raw.socket.destroy();
  });
  raw.on('error', () => undefined);
}
