// /v1/keys: a tenant's API keys. Tokens are shown once, at creation.
import { Type } from 'typebox';
import { v7 as uuidv7 } from 'uuid';
import { withTransaction } from '../../platform/db/index.ts';
import { isUuid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { newToken, type Scope } from '../keys.ts';
import { insertKey, listKeys, revokeKey } from '../store/index.ts';
import { callerOf, isAdmin, requireScope } from './auth.ts';
import type { JobsAppDeps } from './deps.ts';
import { CreateKeyBody, IdParams, securedBy, type CreatedKeyView } from './schemas.ts';
import { keyView } from './views.ts';

const TAGS = ['keys'];

export function keysRoutes(deps: JobsAppDeps): RoutePlugin {
  const scope = (s: Scope) => requireScope(deps.pool, deps.log, s);

  return async (app) => {
    app.post(
      '/v1/keys',
      {
        onRequest: scope('keys:admin'),
        schema: {
          tags: TAGS,
          summary: "Create an API key in the caller's tenant; its token is shown only in this response",
          security: securedBy('keys:admin'),
          body: CreateKeyBody,
          response: { 201: Type.Ref('CreatedKey'), ...problemResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply): Promise<CreatedKeyView> => {
        const { tenantId } = callerOf(request);
        const { token, hash, prefix } = newToken();
        const key = await insertKey(deps.pool, {
          id: uuidv7(),
          tenantId,
          name: request.body.name,
          scopes: request.body.scopes as Scope[],
          tokenHash: hash,
          tokenPrefix: prefix,
        });
        void reply.code(201);
        return { id: key.id, token, name: key.name, scopes: key.scopes, created_at: key.createdAt.toISOString() };
      },
    );

    app.get(
      '/v1/keys',
      {
        onRequest: scope('keys:read'),
        schema: {
          tags: TAGS,
          summary: "The tenant's keys with keys:admin; otherwise the caller's own key",
          security: securedBy('keys:read'),
          response: { 200: Type.Ref('KeyList'), ...problemResponses(401, 403) },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const keys = await listKeys(deps.pool, caller.tenantId, isAdmin(caller) ? undefined : caller.keyId);
        return { keys: keys.map(keyView) };
      },
    );

    app.delete(
      '/v1/keys/:id',
      {
        onRequest: scope('keys:admin'),
        schema: {
          tags: TAGS,
          summary: 'Revoke a key (at once, on every process); revoking a revoked key is a no-op',
          security: securedBy('keys:admin'),
          params: IdParams,
          response: { 204: { description: 'revoked', type: 'null' }, ...problemResponses(401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const { tenantId } = callerOf(request);
        const outcome = isUuid(id) ? await withTransaction(deps.pool, (tx) => revokeKey(tx, tenantId, id)) : 'not_found';
        if (outcome === 'not_found') throw new Problem('not_found', `no key ${id}`);
        if (outcome === 'last_admin') {
          throw new Problem('conflict', 'this is the last active keys:admin key of the tenant; create another admin key first');
        }
        return reply.code(204).send(null);
      },
    );
  };
}
