// API key tokens of the jobs service: `dm_jobs_` + 32 random bytes in base62. Only their SHA-256 is stored.
import { randomBytes } from 'node:crypto';
import { hashToken } from '../platform/http/index.ts';

export { hashToken, sameHash } from '../platform/http/index.ts';

export const SCOPES = ['jobs:create', 'jobs:read', 'keys:admin', 'keys:read'] as const;
export type Scope = (typeof SCOPES)[number];

const TOKEN_PREFIX = 'dm_jobs_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 62^43 > 2^256: every 32-byte value has a 43-character encoding.
const SECRET_LENGTH = 43;
/** How many characters of the token the key list shows, so a person can tell keys apart. */
const SHOWN = TOKEN_PREFIX.length + 4;

interface NewToken {
  token: string;
  hash: Buffer;
  prefix: string;
}

export function newToken(): NewToken {
  let n = BigInt(`0x${randomBytes(32).toString('hex')}`);
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) {
    secret = ALPHABET[Number(n % 62n)] + secret;
    n /= 62n;
  }
  const token = TOKEN_PREFIX + secret;
  return { token, hash: hashToken(token), prefix: token.slice(0, SHOWN) };
}

/** Whether a string has the shape of one of our tokens (checked before any database lookup). */
export function looksLikeToken(value: string): boolean {
  return (
    value.length === TOKEN_PREFIX.length + SECRET_LENGTH &&
    value.startsWith(TOKEN_PREFIX) &&
    /^[0-9A-Za-z]+$/.test(value.slice(TOKEN_PREFIX.length))
  );
}
