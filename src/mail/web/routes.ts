// The web inbox at `/`: the Vite build served as static files, with strict security headers. Only files that
// exist at start are routed (no wildcard), so every other path still gets the API's 404 problem.
import fastifyStatic from '@fastify/static';
import { Problem, SECURITY_HEADERS, type RoutePlugin } from '../../platform/http/index.ts';
import { assetsBuilt, WEB_ASSETS_DIR } from './assets.ts';

export interface WebOptions {
  /** The built assets; `dist/web/` by default. */
  assetsDir?: string;
}

export function webRoutes(options: WebOptions = {}): RoutePlugin {
  const root = options.assetsDir ?? WEB_ASSETS_DIR;
  return async (app) => {
    // Encapsulated: these headers go on the page's responses only, not on the API's.
    app.addHook('onSend', async (_request, reply, payload) => {
      void reply.headers(SECURITY_HEADERS);
      return payload;
    });
    if (!assetsBuilt(root)) {
      app.log.warn({ root }, 'the web inbox is not built (npm run build): / answers 503');
      app.get('/', { schema: { hide: true } }, async () => {
        throw new Problem('service_unavailable', 'the web inbox is not built: run npm run build');
      });
      return;
    }
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: ['index.html'],
      schemaHide: true,
      // Hashed file names under assets/ never change; the page itself is revalidated on every load.
      setHeaders: (reply, path) => {
        const immutable = path.includes('/assets/');
        void reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
      cacheControl: false,
    });
  };
}
