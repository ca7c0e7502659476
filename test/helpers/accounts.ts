// Credentials of mail accounts for tests: JWTs signed as an issuer would sign them (any claims, any key), and
// API keys made through the API itself.
import { Writable } from 'node:stream';
import { SignJWT, type JWTPayload } from 'jose';
import { createLogger, type Logger } from '../../src/platform/log.ts';
import type { Mail } from './mail.ts';

/** MAIL_JWT_SECRET of the test apps (at least 32 bytes, as the setting requires). */
export const JWT_SECRET = 'test-secret-of-the-mail-service-0123456789';

/**
 * A token with these claims (`sub`, `tier`, and `exp` one hour ahead unless given; `undefined` leaves a claim
 * out), HS256 with JWT_SECRET unless another key or algorithm is named.
 */
export async function jwtFor(
  claims: JWTPayload,
  options: { key?: Parameters<SignJWT['sign']>[0]; alg?: string; kid?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { iat: now, exp: now + 3600, ...claims };
  for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT', ...(options.kid ? { kid: options.kid } : {}) })
    .sign(options.key ?? new TextEncoder().encode(JWT_SECRET));
}

/** An account's token: `sub` and `tier` as given. */
export function tokenOf(account: string, tier: number, claims: JWTPayload = {}): Promise<string> {
  return jwtFor({ sub: account, tier, ...claims });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const apiKey = (key: string) => ({ 'x-api-key': key });

export interface CreatedKey {
  id: string;
  key_prefix: string;
  label: string | null;
  plaintext: string;
  expires_at: string;
}

/** A key of the account, made with a tier-3 JWT. */
export async function keyOf(mail: Mail, account: string, body: Record<string, unknown> = {}): Promise<CreatedKey> {
  const res = await mail.call('/api/v1/api-keys', { body, headers: bearer(await tokenOf(account, 3)) });
  if (res.status !== 201) throw new Error(`api-keys answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CreatedKey;
}

/** A logger at trace level whose every line is kept, to check what reaches the log. */
export function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { log: createLogger({ level: 'trace' }, sink), lines };
}
