// API keys of the mail service: `tm_<key_prefix>_<48 hex>` (docs/api/README.md, "Credentials"). The prefix
// (8 of [a-z0-9]) is public and finds the key; the 48 hex characters are 192 random bits. Only the SHA-256 of
// the whole key is stored.
import { randomBytes, randomInt } from 'node:crypto';
import { hashToken } from '../platform/http/index.ts';

const LITERAL = 'tm';
const SHAPE = /^tm_([a-z0-9]{8})_[0-9a-f]{48}$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export interface NewApiKey {
  plaintext: string;
  keyPrefix: string;
  hash: Buffer;
}

export function newApiKey(): NewApiKey {
  let keyPrefix = '';
  for (let i = 0; i < 8; i++) keyPrefix += ALPHABET[randomInt(ALPHABET.length)];
  const plaintext = `${LITERAL}_${keyPrefix}_${randomBytes(24).toString('hex')}`;
  return { plaintext, keyPrefix, hash: hashToken(plaintext) };
}

/** The prefix and hash of a presented key, or undefined when it does not have a key's shape (no database read). */
export function parseApiKey(value: string): { keyPrefix: string; hash: Buffer } | undefined {
  const match = SHAPE.exec(value);
  return match ? { keyPrefix: match[1]!, hash: hashToken(value) } : undefined;
}

/** Whether a Bearer token is one of our keys sent the wrong way (said so in the 401). */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(`${LITERAL}_`);
}
