// The Developer tier's routes: API keys and programmatic inboxes, behind one JWT verifier (and its JWKS cache).
import type { RoutePlugin } from '../../platform/http/index.ts';
import { accountInboxesRoutes } from './account-inboxes-routes.ts';
import { createRequireTier } from './auth.ts';
import type { MailAppDeps } from './deps.ts';
import { keysRoutes } from './keys-routes.ts';

export function developerRoutes(deps: MailAppDeps): RoutePlugin {
  const requireTier = createRequireTier(deps);
  return async (app) => {
    await app.register(keysRoutes(deps, requireTier));
    await app.register(accountInboxesRoutes(deps, requireTier));
  };
}
