// /api/v1/namespaces: an account claims `<name>.*@<domain>`; the inbox of each address is made on its first
// mail (store/recipients.ts) with the namespace's settings. Another account's namespace is 404, as is an unknown one.
import { v7 as uuidv7 } from 'uuid';
import { invalid, isUuid, Problem, problemResponses, type RoutePlugin, type ValidationIssue } from '../../platform/http/index.ts';
import { normaliseLocalPart } from '../addresses.ts';
import { deleteNamespace, insertNamespace, listNamespaces } from '../store/index.ts';
import { checkDomainTier, newWebhookSecret, webhookIssue } from './account-settings.ts';
import { CreateNamespaceBody } from './account-schemas.ts';
import { accountOf, DEVELOPER_TIER, type MailAuth } from './auth.ts';
import type { MailAppDeps } from './deps.ts';
import { labelIssue } from './labels.ts';
import { namedDomain, unknownDomain } from './placement.ts';
import { IdParams, SECURITY } from './schemas.ts';
import { createdNamespaceView, namespaceView } from './views.ts';

const TAGS = ['namespaces'];

export function namespacesRoutes(deps: MailAppDeps, auth: MailAuth): RoutePlugin {
  return async (app) => {
    app.post(
      '/api/v1/namespaces',
      {
        onRequest: auth.requireTier(DEVELOPER_TIER),
        schema: {
          tags: TAGS,
          summary: 'Claim <name>.*@<domain> for the calling account (tier 3 or higher); webhook_secret is shown only here',
          description:
            'Mail to any address `<name>.<anything>@<domain>` is accepted; the inbox of the address is made on its first mail, ' +
            "owned by the account, with the namespace's privacy, life, label and webhook. 409 when the name is taken on the " +
            'domain, or when live inboxes of others already have such addresses.',
          security: SECURITY,
          body: CreateNamespaceBody,
          response: { 201: { $ref: 'CreatedNamespace' }, ...problemResponses(400, 401, 403, 409, 413, 415, 503) },
        },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const body = request.body;
        const issues: ValidationIssue[] = [];
        const domain = await namedDomain(deps.pool, body.domain);
        if (!domain) issues.push(unknownDomain(body.domain));
        // The pattern leaves only role names to refuse: their addresses invite abuse of the domain.
        const checked = normaliseLocalPart(body.name);
        if (!checked.ok) issues.push({ path: '/name', location: 'body', message: `${JSON.stringify(body.name)} ${checked.reason}` });
        const badLabel = labelIssue(body.label);
        if (badLabel) issues.push(badLabel);
        const badUrl = webhookIssue(body.webhook_url, deps.allowPrivateNetwork);
        if (badUrl) issues.push(badUrl);
        if (!domain || issues.length) throw invalid(issues);
        checkDomainTier(domain, account);
        const webhookUrl = body.webhook_url ?? null;
        const webhookSecret = webhookUrl === null ? null : newWebhookSecret();
        const claimed = await insertNamespace(deps.pool, {
          id: uuidv7(),
          accountId: account.accountId,
          domain: domain.name,
          name: body.name,
          isPrivate: body.private ?? false,
          inboxTtlSeconds: body.ttl_seconds === undefined ? deps.anonTtlSeconds : body.ttl_seconds,
          label: body.label ?? null,
          webhookUrl,
          webhookSecret,
        });
        if ('refused' in claimed) {
          throw new Problem(
            'conflict',
            claimed.refused === 'taken'
              ? `the namespace ${body.name} on ${domain.name} is taken`
              : `live inboxes of others already have addresses ${body.name}.*@${domain.name}`,
          );
        }
        void reply.code(201);
        return createdNamespaceView(claimed.namespace, webhookSecret);
      },
    );

    app.get(
      '/api/v1/namespaces',
      {
        onRequest: auth.requireTier(0),
        schema: {
          tags: TAGS,
          summary: "The calling account's namespaces, oldest first, with their live inbox counts (any tier)",
          security: SECURITY,
          response: { 200: { $ref: 'NamespaceList' }, ...problemResponses(401, 503) },
        },
      },
      async (request) => ({ namespaces: (await listNamespaces(deps.pool, accountOf(request).accountId)).map(namespaceView) }),
    );

    app.delete(
      '/api/v1/namespaces/:id',
      {
        onRequest: auth.requireTier(0),
        schema: {
          tags: TAGS,
          summary: 'Delete a namespace of the calling account, with its inboxes and their messages (any tier)',
          security: SECURITY,
          params: IdParams,
          response: { 204: { description: 'deleted', type: 'null' }, ...problemResponses(401, 404, 503) },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        if (!(isUuid(id) && (await deleteNamespace(deps.pool, accountOf(request).accountId, id.toLowerCase())))) {
          throw new Problem('not_found', `no namespace ${id}`);
        }
        return reply.code(204).send(null);
      },
    );
  };
}
