// POST /api/v1/inboxes: a programmatic inbox of the calling account (tier 3 or higher), on any domain its tier
// reaches, private ones included, with a label, a chosen life (or none) and a signed webhook.
import { randomBytes } from 'node:crypto';
import type { onRequestAsyncHookHandler } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { invalid, Problem, problemResponses, type RoutePlugin, type ValidationIssue } from '../../platform/http/index.ts';
import { webhookUrlProblem } from '../../platform/net/index.ts';
import { insertAccountInbox } from '../store/index.ts';
import { accountOf, DEVELOPER_TIER, tierName } from './auth.ts';
import type { MailAppDeps } from './deps.ts';
import { labelIssue } from './labels.ts';
import { namedDomain, placeInbox, requestedLocalPart, unknownDomain } from './placement.ts';
import { CreateInboxBody, SECURITY } from './schemas.ts';
import { createdInboxView } from './views.ts';

export function accountInboxesRoutes(deps: MailAppDeps, requireTier: (tier: number) => onRequestAsyncHookHandler): RoutePlugin {
  return async (app) => {
    app.post(
      '/api/v1/inboxes',
      {
        onRequest: requireTier(DEVELOPER_TIER),
        schema: {
          tags: ['inboxes'],
          summary: 'Make an inbox of the calling account (tier 3 or higher); webhook_secret is shown only here',
          security: SECURITY,
          body: CreateInboxBody,
          response: { 201: { $ref: 'CreatedInbox' }, ...problemResponses(400, 401, 403, 409, 413, 415, 503) },
        },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const body = request.body;
        // Every field problem at once, then the tier.
        const issues: ValidationIssue[] = [];
        const domain = await namedDomain(deps.pool, body.domain);
        if (!domain) issues.push(unknownDomain(body.domain));
        const { localPart, issue } = requestedLocalPart(body.local_part);
        if (issue) issues.push(issue);
        const badLabel = labelIssue(body.label);
        if (badLabel) issues.push(badLabel);
        const webhookUrl = body.webhook_url ?? null;
        const urlProblem = webhookUrl === null ? undefined : webhookUrlProblem(webhookUrl, deps.allowPrivateNetwork ?? false);
        if (urlProblem) issues.push({ path: '/webhook_url', location: 'body', message: urlProblem });
        if (!domain || issues.length) throw invalid(issues);
        if (account.tier < domain.tierRequired) {
          throw new Problem(
            'tier_required',
            `${domain.name} needs an account of ${tierName(domain.tierRequired)} or higher; this account has tier ${account.tier}`,
            {
              extra: { required_tier: domain.tierRequired },
            },
          );
        }
        // Kept as is, unlike API keys: every webhook is signed with it (HMAC needs the secret itself).
        const webhookSecret = webhookUrl === null ? null : randomBytes(24).toString('hex');
        // Omitted: the anonymous life, so only an explicit null makes an inbox that never expires.
        const ttlSeconds = body.ttl_seconds === undefined ? deps.anonTtlSeconds : body.ttl_seconds;
        const inbox = await placeInbox(domain.name, localPart, (address) =>
          insertAccountInbox(deps.pool, {
            id: uuidv7(),
            address,
            domain: domain.name,
            ttlSeconds,
            accountId: account.accountId,
            label: body.label ?? null,
            webhookUrl,
            webhookSecret,
          }),
        );
        void reply.code(201).header('location', `/api/v1/inboxes/${encodeURIComponent(inbox.address)}`);
        return createdInboxView(inbox, webhookSecret);
      },
    );
  };
}
