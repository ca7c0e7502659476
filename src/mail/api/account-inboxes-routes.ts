// /api/v1/inboxes of the calling account: make one (tier 3 or higher), on any domain its tier reaches, private
// ones included, with a label, a chosen life (or none), a signed webhook, private or not; or list them a page at
// a time. A chosen address in one of the account's namespaces joins it and takes its settings unless the body
// says otherwise; in another account's, it is 409.
import { v7 as uuidv7 } from 'uuid';
import { invalid, isUuid, Problem, problemResponses, type RoutePlugin, type ValidationIssue } from '../../platform/http/index.ts';
import { insertAccountInbox, listAccountInboxes, type InboxPosition } from '../store/index.ts';
import { checkDomainTier, newWebhookSecret, webhookIssue } from './account-settings.ts';
import { DEFAULT_INBOX_PAGE, InboxListQuery } from './account-schemas.ts';
import { accountOf, DEVELOPER_TIER, type MailAuth } from './auth.ts';
import type { MailAppDeps } from './deps.ts';
import { labelIssue } from './labels.ts';
import { namedDomain, namespaceFor, placeInbox, requestedLocalPart, unknownDomain } from './placement.ts';
import { CreateInboxBody, SECURITY } from './schemas.ts';
import { createdInboxView, inboxView } from './views.ts';

export function accountInboxesRoutes(deps: MailAppDeps, auth: MailAuth): RoutePlugin {
  return async (app) => {
    app.post(
      '/api/v1/inboxes',
      {
        onRequest: auth.requireTier(DEVELOPER_TIER),
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
        // Every field problem at once, then the tier, then the namespace.
        const issues: ValidationIssue[] = [];
        const domain = await namedDomain(deps.pool, body.domain);
        if (!domain) issues.push(unknownDomain(body.domain));
        const { localPart, issue } = requestedLocalPart(body.local_part);
        if (issue) issues.push(issue);
        const badLabel = labelIssue(body.label);
        if (badLabel) issues.push(badLabel);
        const badUrl = webhookIssue(body.webhook_url, deps.allowPrivateNetwork);
        if (badUrl) issues.push(badUrl);
        if (!domain || issues.length) throw invalid(issues);
        checkDomainTier(domain, account);
        const namespace = await namespaceFor(deps.pool, domain.name, localPart, account.accountId);
        // A field the body leaves out: the namespace's, else the defaults (omitted ttl_seconds: the anonymous
        // life, so only an explicit null makes an inbox that never expires).
        const ownWebhook = body.webhook_url !== undefined || !namespace;
        const webhookUrl = ownWebhook ? (body.webhook_url ?? null) : namespace.webhookUrl;
        const webhookSecret = ownWebhook ? (webhookUrl === null ? null : newWebhookSecret()) : namespace.webhookSecret;
        const ttlSeconds = body.ttl_seconds !== undefined ? body.ttl_seconds : namespace ? namespace.inboxTtlSeconds : deps.anonTtlSeconds;
        const inbox = await placeInbox(domain.name, localPart, (address) =>
          insertAccountInbox(deps.pool, {
            id: uuidv7(),
            address,
            domain: domain.name,
            ttlSeconds,
            accountId: account.accountId,
            label: body.label !== undefined ? body.label : (namespace?.label ?? null),
            webhookUrl,
            webhookSecret,
            isPrivate: body.private ?? namespace?.isPrivate ?? false,
            namespaceId: namespace?.id ?? null,
          }),
        );
        void reply.code(201).header('location', `/api/v1/inboxes/${encodeURIComponent(inbox.address)}`);
        return createdInboxView(inbox, webhookSecret);
      },
    );

    app.get(
      '/api/v1/inboxes',
      {
        onRequest: auth.requireTier(0),
        schema: {
          tags: ['inboxes'],
          summary: "The calling account's live inboxes, newest first, a page at a time (any tier)",
          security: SECURITY,
          querystring: InboxListQuery,
          response: { 200: { $ref: 'InboxPage' }, ...problemResponses(400, 401, 503) },
        },
      },
      async (request) => {
        const { limit = DEFAULT_INBOX_PAGE, cursor, namespace } = request.query;
        const after = cursor === undefined ? null : readCursor(cursor);
        const rows = await listAccountInboxes(deps.pool, accountOf(request).accountId, {
          limit: limit + 1,
          after,
          namespace: namespace ?? null,
        });
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return { inboxes: page.map(inboxView), next_cursor: rows.length > limit && last ? writeCursor(last.position) : null };
      },
    );
  };
}

// A cursor is opaque to clients: the position of the page's last inbox, base64url-encoded.
function writeCursor(position: InboxPosition): string {
  return Buffer.from(`${position.micros}.${position.id}`).toString('base64url');
}

function readCursor(cursor: string): InboxPosition {
  const [micros, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  if (rest.length > 0 || !micros || !/^\d{1,18}$/.test(micros) || !id || !isUuid(id)) {
    throw new Problem('invalid_cursor', 'cursor is not a next_cursor of GET /api/v1/inboxes');
  }
  return { micros, id };
}
