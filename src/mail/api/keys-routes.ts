// /api/v1/api-keys: an account's API keys. The plaintext is shown once, at creation; keys of one account are
// invisible to every other (404, never 403).
import type { onRequestAsyncHookHandler } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { invalid, isUuid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { newApiKey } from '../keys.ts';
import { insertApiKey, listApiKeys, revokeApiKey } from '../store/index.ts';
import { accountOf, DEVELOPER_TIER } from './auth.ts';
import type { MailAppDeps } from './deps.ts';
import { labelIssue } from './labels.ts';
import { CreateApiKeyBody, IdParams, SECURITY } from './schemas.ts';
import { apiKeyView, createdApiKeyView } from './views.ts';

const TAGS = ['api keys'];
const ATTEMPTS = 5;

export function keysRoutes(deps: MailAppDeps, requireTier: (tier: number) => onRequestAsyncHookHandler): RoutePlugin {
  return async (app) => {
    app.post(
      '/api/v1/api-keys',
      {
        onRequest: requireTier(DEVELOPER_TIER),
        schema: {
          tags: TAGS,
          summary: 'Create an API key of the calling account (tier 3 or higher); its plaintext is shown only here',
          security: SECURITY,
          body: CreateApiKeyBody,
          response: { 201: { $ref: 'CreatedApiKey' }, ...problemResponses(400, 401, 403, 413, 415, 503) },
        },
        // No body at all is the empty object: every field has a default.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const { accountId } = accountOf(request);
        const { label = null, expires_in_days: expiresInDays = 90 } = request.body;
        const issue = labelIssue(label);
        if (issue) throw invalid([issue]);
        // A prefix already taken (1 in 2.8e12 per key) is simply drawn again.
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          const { plaintext, keyPrefix, hash } = newApiKey();
          const key = await insertApiKey(deps.pool, { id: uuidv7(), accountId, keyPrefix, keyHash: hash, label, expiresInDays });
          if (key) {
            void reply.code(201);
            return createdApiKeyView(key, plaintext);
          }
        }
        throw new Error('no free key prefix after several draws');
      },
    );

    app.get(
      '/api/v1/api-keys',
      {
        onRequest: requireTier(0),
        schema: {
          tags: TAGS,
          summary: "The calling account's keys, revoked and expired ones too, oldest first (never their plaintext)",
          security: SECURITY,
          response: { 200: { $ref: 'ApiKeyList' }, ...problemResponses(401, 503) },
        },
      },
      async (request) => (await listApiKeys(deps.pool, accountOf(request).accountId)).map(apiKeyView),
    );

    app.delete(
      '/api/v1/api-keys/:id',
      {
        onRequest: requireTier(0),
        schema: {
          tags: TAGS,
          summary: 'Revoke a key of the calling account: refused at once on every process; revoking it again is a no-op',
          security: SECURITY,
          params: IdParams,
          response: { 204: { description: 'revoked', type: 'null' }, ...problemResponses(401, 404, 503) },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const { accountId } = accountOf(request);
        if (!(isUuid(id) && (await revokeApiKey(deps.pool, accountId, id.toLowerCase()))))
          throw new Problem('not_found', `no API key ${id}`);
        return reply.code(204).send(null);
      },
    );
  };
}
