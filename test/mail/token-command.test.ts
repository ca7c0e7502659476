// `domainkit mail token`: a JWT for local use, signed with MAIL_JWT_SECRET, that the mail API accepts.
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { bearer, JWT_SECRET } from '../helpers/accounts.ts';
import { runCli } from '../helpers/cli.ts';
import { useMail } from '../helpers/mail.ts';

const t = useMail({ env: { MAIL_JWT_SECRET: JWT_SECRET } });

describe('domainkit mail token', () => {
  it('prints an HS256 JWT with sub, tier, iat and exp (--ttl); the API accepts it at that tier', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await runCli(['mail', 'token', '--account', 'acme-dev', '--tier', '3', '--ttl', '30m'], { MAIL_JWT_SECRET: JWT_SECRET });
    const after = Math.ceil(Date.now() / 1000);
    expect(res.code, res.stderr).toBe(0);
    const token = res.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(token).alg).toBe('HS256');
    const { payload } = await jwtVerify(token, new TextEncoder().encode(JWT_SECRET));
    expect(payload).toMatchObject({ sub: 'acme-dev', tier: 3 });
    expect(payload.exp! - payload.iat!).toBe(1800);
    // Issued while the command ran.
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(after);

    const made = await t.mail.call('/api/v1/api-keys', { body: {}, headers: bearer(token) });
    expect(made.status).toBe(201);
  });

  it('lasts an hour by default; a tier below 3 is refused the Developer routes', async () => {
    const res = await runCli(['mail', 'token', '--account', 'free-user', '--tier', '0'], { MAIL_JWT_SECRET: JWT_SECRET });
    expect(res.code, res.stderr).toBe(0);
    const payload = decodeJwt(res.stdout.trim());
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect((await t.mail.call('/api/v1/api-keys', { body: {}, headers: bearer(res.stdout.trim()) })).status).toBe(403);
  });

  it.each([
    ['without MAIL_JWT_SECRET', ['--account', 'a', '--tier', '3'], {}, 'MAIL_JWT_SECRET is not set'],
    [
      'with MAIL_JWKS_URL instead',
      ['--account', 'a', '--tier', '3'],
      { MAIL_JWKS_URL: 'https://issuer.example/jwks.json' },
      'MAIL_JWKS_URL',
    ],
    [
      'with a tier that is not an integer',
      ['--account', 'a', '--tier', 'high'],
      { MAIL_JWT_SECRET: JWT_SECRET },
      '--tier must be an integer',
    ],
    ['with an empty account', ['--account', ' ', '--tier', '3'], { MAIL_JWT_SECRET: JWT_SECRET }, '--account must be a non-empty string'],
    ['with a bad --ttl', ['--account', 'a', '--tier', '3', '--ttl', 'soon'], { MAIL_JWT_SECRET: JWT_SECRET }, '--ttl takes one duration'],
  ])('fails clearly %s (exit 1, nothing on stdout)', async (_what, args, env, words) => {
    const res = await runCli(['mail', 'token', ...args], env as Record<string, string>);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(words);
  });

  it('a secret shorter than 32 bytes is a bad setting (exit 2)', async () => {
    const res = await runCli(['mail', 'token', '--account', 'a', '--tier', '3'], { MAIL_JWT_SECRET: 'short' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('MAIL_JWT_SECRET');
    expect(res.stderr).not.toContain('short');
  });
});
