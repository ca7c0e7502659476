// The Developer tier's routes: API keys, an account's inboxes and its namespaces, behind the app's one
// authenticator (its JWT verifier and JWKS cache).
import type { RoutePlugin } from '../../platform/http/index.ts';
import { accountInboxesRoutes } from './account-inboxes-routes.ts';
import type { MailAuth } from './auth.ts';
import type { MailAppDeps } from './deps.ts';
import { keysRoutes } from './keys-routes.ts';
import { namespacesRoutes } from './namespaces-routes.ts';

export function developerRoutes(deps: MailAppDeps, auth: MailAuth): RoutePlugin {
  return async (app) => {
    await app.register(keysRoutes(deps, auth.requireTier));
    await app.register(accountInboxesRoutes(deps, auth));
    await app.register(namespacesRoutes(deps, auth));
  };
}
