// The interactive API reference at `/docs`: Swagger UI rendering the app's own `/openapi.json`. Its files come
// from the swagger-ui-dist package in node_modules (a runtime dependency), never from a CDN; its configuration
// is a served script, not inline code, so the page lives under the same policy as the web inbox
// (headers.ts). Only the routes below exist, hidden from the OpenAPI document: every other path keeps the
// API's 404 problem. Why Swagger UI: docs/decisions.md, "API documentation".
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { RoutePlugin } from './types.ts';
import { SECURITY_HEADERS } from './headers.ts';

export const DOCS_PATH = '/docs';

/** The package's folder, found the way Node finds the package, so it works from a source checkout and an install. */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The files of the package the page loads; nothing else of the package is reachable. */
const PACKAGE_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'];

// The renderer's settings. `validatorUrl: null` turns off the badge that would send the document to the
// validator's public server; no `servers` in our documents, so "Try it out" calls this same origin.
const CONFIGURATION_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  validatorUrl: null,
  deepLinking: true,
  displayRequestDuration: true,
});
`;

export function docsRoutes(title: string): RoutePlugin {
  const page = pageHtml(title);
  return async (app) => {
    // Encapsulated: the page's headers go on these responses only, not on the API's.
    app.addHook('onSend', async (_request, reply, payload) => {
      void reply.headers(SECURITY_HEADERS).header('cache-control', 'no-cache');
      return payload;
    });
    await app.register(fastifyStatic, { root: SWAGGER_UI_DIR, serve: false, cacheControl: false });
    app.get(DOCS_PATH, { schema: { hide: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
    app.get(`${DOCS_PATH}/reference.js`, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').send(CONFIGURATION_SCRIPT),
    );
    for (const file of PACKAGE_FILES) {
      app.get(`${DOCS_PATH}/${file}`, { schema: { hide: true } }, async (_request, reply) => reply.sendFile(file));
    }
  };
}

function pageHtml(title: string): string {
  const name = escapeHtml(title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name}: reference</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/reference.js"></script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}
