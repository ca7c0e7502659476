// Account JWTs (docs/decisions.md, "Mail service: accounts, API keys, programmatic inboxes"): verified with
// MAIL_JWT_SECRET (HS256) or with the keys published at MAIL_JWKS_URL; `sub` is the account, `tier` its tier,
// `exp` is required. `domainkit mail token` signs one with the secret for local use.
import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';

export interface JwtSettings {
  /** MAIL_JWT_SECRET: tokens are HS256, signed with it. */
  secret?: string | undefined;
  /** MAIL_JWKS_URL: tokens are signed with an asymmetric key published there. */
  jwksUrl?: string | undefined;
}

export interface AccountClaims {
  accountId: string;
  tier: number;
  /** `iat`, when the token has one: which of two tokens holds the newer tier. */
  issuedAt: Date | null;
}

export type Verification =
  | { ok: true; claims: AccountClaims }
  /** `unavailable`: the JWKS could not be fetched, so nothing can be said about the token. */
  | { ok: false; reason: string; unavailable?: true };

export type JwtVerifier = (token: string) => Promise<Verification>;

/** The `accounts.tier` column is a PostgreSQL integer. */
export const MAX_TIER = 2_147_483_647;
const MAX_ACCOUNT_LENGTH = 255;
/** Leeway for `exp` (and `nbf`) between the issuer's clock and ours. */
const CLOCK_TOLERANCE_SECONDS = 30;
/** A JWKS holds public keys: HMAC algorithms (alg confusion with a public key as secret) and `none` never pass. */
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Token faults (401); any other failure with a JWKS is the key server's (503). */
const TOKEN_FAULTS: Record<string, string> = {
  ERR_JWT_EXPIRED: 'the token has expired',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the token signature is not valid',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'the token signature is not valid',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the token is signed with an algorithm (alg) this service does not accept',
  ERR_JOSE_NOT_SUPPORTED: 'the token is signed with an algorithm (alg) this service does not accept',
  ERR_JWKS_NO_MATCHING_KEY: 'no key of MAIL_JWKS_URL matches the token',
  ERR_JWS_INVALID: 'the token is not a well-formed JWT',
  ERR_JWT_INVALID: 'the token is not a well-formed JWT',
};

/** The verifier for the settings, or undefined when neither is set (every JWT is then refused). */
export function createJwtVerifier(settings: JwtSettings): JwtVerifier | undefined {
  if (settings.secret !== undefined) {
    const key = new TextEncoder().encode(settings.secret);
    return (token) => verify(() => jwtVerify(token, key, options(['HS256'])), false);
  }
  if (settings.jwksUrl !== undefined) {
    // Fetched on first use, cached, and fetched again (at most every 30 s) when a token names an unknown key.
    const keys = createRemoteJWKSet(new URL(settings.jwksUrl));
    return (token) => verify(() => jwtVerify(token, keys, options(ASYMMETRIC)), true);
  }
  return undefined;
}

function options(algorithms: string[]) {
  return { algorithms, requiredClaims: ['exp', 'sub', 'tier'], clockTolerance: CLOCK_TOLERANCE_SECONDS };
}

async function verify(run: () => Promise<{ payload: JWTPayload }>, remote: boolean): Promise<Verification> {
  let payload: JWTPayload;
  try {
    ({ payload } = await run());
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED')
      return { ok: false, reason: `the token's claims are not valid: ${(err as Error).message}` };
    const fault = typeof code === 'string' ? TOKEN_FAULTS[code] : undefined;
    if (fault) return { ok: false, reason: fault };
    if (remote) return { ok: false, reason: 'the keys at MAIL_JWKS_URL could not be fetched to verify the token', unavailable: true };
    return { ok: false, reason: 'the token could not be verified' };
  }
  const problem = claimsProblem(payload.sub, payload.tier);
  if (problem) return { ok: false, reason: `the token's claims are not valid: ${problem}` };
  return {
    ok: true,
    claims: {
      accountId: payload.sub as string,
      tier: payload.tier as number,
      issuedAt: typeof payload.iat === 'number' ? new Date(payload.iat * 1000) : null,
    },
  };
}

/** Why `sub` and `tier` cannot name an account and its tier, or undefined. */
export function claimsProblem(sub: unknown, tier: unknown): string | undefined {
  if (typeof sub !== 'string' || sub.trim() === '') return 'sub (the account id) must be a non-empty string';
  if (sub.includes('\u0000')) return 'sub (the account id) must not contain NUL characters';
  if (sub.length > MAX_ACCOUNT_LENGTH) return `sub (the account id) must have at most ${MAX_ACCOUNT_LENGTH} characters`;
  if (typeof tier !== 'number' || !Number.isInteger(tier) || tier < 0 || tier > MAX_TIER) return 'tier must be an integer ≥ 0';
  return undefined;
}

/** An HS256 token for the account (what `domainkit mail token` prints). Throws with a message for the CLI. */
export async function signAccountToken(secret: string, claims: { account: string; tier: number; ttlSeconds: number }): Promise<string> {
  const problem = claimsProblem(claims.account, claims.tier);
  if (problem) throw new Error(problem.replace(/^sub \(the account id\)/, '--account').replace(/^tier/, '--tier'));
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tier: claims.tier })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.account)
    .setIssuedAt(now)
    .setExpirationTime(now + claims.ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}
