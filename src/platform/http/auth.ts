// What both APIs share about credentials: reading them off a request, the 401 that refuses them, and how a
// stored API key is hashed and compared. What a credential means (a jobs token, a mail JWT or key) stays with
// each service.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Problem } from './problem.ts';

/** A 401 `unauthorized` carrying the `WWW-Authenticate: Bearer` challenge of the API's realm. */
export function unauthorized(realm: string, detail: string): Problem {
  return new Problem('unauthorized', detail, { headers: { 'www-authenticate': `Bearer realm="${realm}"` } });
}

export interface Presented {
  /** The token of `Authorization: Bearer <token>`. */
  bearer: string | undefined;
  /** The `X-API-Key` header. */
  apiKey: string | undefined;
}

/**
 * The credentials a request carries, each undefined when absent. An Authorization header that is not
 * `Bearer <token>` and a repeated X-API-Key are refused (401) rather than ignored: the caller meant something.
 * `bearerName` says what the Bearer token should be, for the message ("API key", "JWT").
 */
export function presentedCredentials(request: FastifyRequest, realm: string, bearerName: string): Presented {
  const authorization = request.headers.authorization;
  const apiKey = request.headers['x-api-key'];
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (!match) throw unauthorized(realm, `the Authorization header must be "Bearer <${bearerName}>"`);
    bearer = match[1];
  }
  if (Array.isArray(apiKey)) throw unauthorized(realm, 'send one X-API-Key header');
  return { bearer, apiKey };
}

/** API keys are stored only as this SHA-256: enough, since every key carries at least 128 random bits. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Constant-time comparison of two hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A key's `last_used_at` is written at most this often, so authentication does not write on every request. */
export const TOUCH_EVERY_MS = 60_000;

export function dueForTouch(lastUsedAt: Date | null, now = Date.now()): boolean {
  return !lastUsedAt || now - lastUsedAt.getTime() > TOUCH_EVERY_MS;
}
