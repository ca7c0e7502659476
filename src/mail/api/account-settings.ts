// What an account's inboxes and namespaces are both made with: a webhook URL checked and given its own signing
// secret, and a domain the account's tier must reach.
import { randomBytes } from 'node:crypto';
import { Problem, type ValidationIssue } from '../../platform/http/index.ts';
import { webhookUrlProblem } from '../../platform/net/index.ts';
import type { DomainRow } from '../store/index.ts';
import { tierName, type Account } from './auth.ts';

/** The issue naming /webhook_url when the URL may not be called (private networks: ALLOW_PRIVATE_NETWORK). */
export function webhookIssue(url: string | null | undefined, allowPrivateNetwork: boolean | undefined): ValidationIssue | undefined {
  const problem = url === null || url === undefined ? undefined : webhookUrlProblem(url, allowPrivateNetwork ?? false);
  return problem ? { path: '/webhook_url', location: 'body', message: problem } : undefined;
}

/** Kept as is, unlike API keys: every webhook is signed with it (HMAC needs the secret itself). */
export function newWebhookSecret(): string {
  return randomBytes(24).toString('hex');
}

/** 403 `tier_required` when the domain's tier is above the account's. */
export function checkDomainTier(domain: DomainRow, account: Account): void {
  if (account.tier >= domain.tierRequired) return;
  throw new Problem(
    'tier_required',
    `${domain.name} needs an account of ${tierName(domain.tierRequired)} or higher; this account has tier ${account.tier}`,
    { extra: { required_tier: domain.tierRequired } },
  );
}
