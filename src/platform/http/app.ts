// The Fastify app factory both APIs are built with. It never listens: src/cli.ts (or a test) does.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import fastify, { LogController } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type Options as AjvOptions } from 'ajv';
import addFormats from 'ajv-formats';
import { Type, type TSchema } from 'typebox';
import type { Pool } from '../db/index.ts';
import type { Logger } from '../log.ts';
import { PRIVATE_NETWORKS, type MetricsAccess } from '../metrics/index.ts';
import { docsRoutes } from './docs.ts';
import { errorHandler, sendProblem } from './errors.ts';
import { refuseOversizedBody } from './body-limit.ts';
import { normaliseClientAddress, trustProxyOption } from './client-address.ts';
import { DEFAULT_HTTP_LIMITS, serverOptions, type HttpLimits } from './limits.ts';
import { countRequest, serveMetrics } from './metrics.ts';
import { PROBLEM_CONTENT_TYPE, ProblemSchema, ValidationIssueSchema, problemBody } from './problem.ts';
import type { App, RoutePlugin } from './types.ts';

export interface AppOptions {
  title: string;
  description: string;
  version: string;
  log: Logger;
  pool: Pool;
  routes: RoutePlugin;
  bodyLimit?: number;
  /** Request timeout and connection cap of the listener (defaults: DEFAULT_HTTP_LIMITS). */
  limits?: HttpLimits | undefined;
  securitySchemes?: Record<string, unknown>;
  /** Schemas with an `$id` that routes refer to with `Type.Ref`; they become OpenAPI components. */
  schemas?: TSchema[];
  /** The `service` label of this listener's request metrics (`jobs`, `mail`, `metrics`). */
  service?: string;
  /** METRICS_ALLOW: who may read `/metrics` (default: loopback and private networks). */
  metricsAccess?: MetricsAccess | undefined;
}

/** Schemas shared by every route ($id → components/schemas in the OpenAPI document). */
const SHARED_SCHEMAS = [ValidationIssueSchema, ProblemSchema];

export async function createApp(options: AppOptions): Promise<App> {
  const limits = options.limits ?? DEFAULT_HTTP_LIMITS;
  const app = fastify({
    ...serverOptions(limits),
    loggerInstance: options.log,
    // One line per request, written by our onResponse hook, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    genReqId: () => randomUUID(),
    // request.ip is the client: X-Forwarded-For counts only from TRUSTED_PROXIES (client-address.ts).
    trustProxy: trustProxyOption(limits.trustedProxies),
    requestIdHeader: false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // A mail address in a path can be 254 characters, percent-encoded up to three times that.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    clientErrorHandler: answerClientError,
    // Bad percent-encoding and over-long path parameters are refused by the router itself: as problems too.
    frameworkErrors: (error, request, reply) => errorHandler(error, request, reply),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  app.server.maxConnections = limits.maxConnections;

  // Bodies are JSON only: without a text/plain parser such a POST gets 415 instead of reaching a handler.
  app.removeContentTypeParser(['text/plain']);
  const schemas = [...SHARED_SCHEMAS, ...(options.schemas ?? [])];
  useValidators(app, schemas);
  for (const schema of schemas) app.addSchema(schema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: options.version },
      components: { securitySchemes: (options.securitySchemes ?? {}) as never },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (json.$id as string | undefined) ?? `def-${i}` },
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    sendProblem(reply, problemBody('not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    normaliseClientAddress(request);
  });
  app.addHook('preParsing', refuseOversizedBody);
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    countRequest(options.service ?? 'http', request, reply);
  });

  registerOperations(app, options.pool);
  app.get('/metrics', { schema: { hide: true } }, serveMetrics(options.metricsAccess ?? PRIVATE_NETWORKS));
  await app.register(docsRoutes(options.title));
  await app.register(options.routes);
  return app;
}

function registerOperations(app: App, pool: Pool): void {
  const Status = Type.Object({ status: Type.String() });
  const problem = { description: 'problem details', content: { [PROBLEM_CONTENT_TYPE]: { schema: Type.Ref('Problem') } } };
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process is alive', response: { 200: Status } } }, async () => ({
    status: 'ok',
  }));
  app.get(
    '/readyz',
    { schema: { tags: ['operations'], summary: 'The database is reachable', response: { 200: Status, 503: problem } } },
    async (_request, reply) => {
      try {
        await withTimeout(pool.query('SELECT 1'), 2000);
        return { status: 'ready' };
      } catch {
        sendProblem(reply, problemBody('service_unavailable', 'the database is not reachable'));
        return reply;
      }
    },
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Two validators: request bodies are taken as sent (a string is never coerced into a number), while query
 * strings, path parameters and headers are text by nature and are coerced to the schema's types.
 */
function useValidators(app: App, schemas: TSchema[]): void {
  const base: AjvOptions = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false };
  const body = addFormats.default(new Ajv({ ...base, coerceTypes: false }));
  const other = addFormats.default(new Ajv({ ...base, coerceTypes: 'array' }));
  for (const ajv of [body, other]) for (const schema of schemas) ajv.addSchema(schema);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : other).compile(schema));
}

/** Requests too broken for the HTTP parser still get a problem body rather than a bare socket close. */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const body =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? problemBody('headers_too_large', 'request headers are too large')
      : problemBody('bad_request', 'the request is not valid HTTP');
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${body.status} ${body.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
