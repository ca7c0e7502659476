// What every HTTP listener adds for metrics: `/metrics` itself, behind the access rule, and the count of the
// requests it answers by route pattern (never the raw URL, so the label values stay few).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import { isMetricsClientAllowed, metricsText, registry, type MetricsAccess } from '../metrics/index.ts';
import { Problem } from './problem.ts';

/** The route label of a request no route matched (404s, unroutable paths). */
const UNMATCHED_ROUTE = 'unmatched';

const httpRequests = new Counter({
  name: 'domainkit_http_requests_total',
  help: 'HTTP requests answered, by API (jobs, mail, metrics), method, route pattern and status code.',
  labelNames: ['service', 'method', 'route', 'status'] as const,
  registers: [registry],
});

export function countRequest(service: string, request: FastifyRequest, reply: FastifyReply): void {
  httpRequests.inc({
    service,
    method: request.method,
    route: request.routeOptions.url ?? UNMATCHED_ROUTE,
    status: String(reply.statusCode),
  });
}

/** The handler of `/metrics`: the Prometheus text for clients the access rule lets in, 403 for the others. */
export function serveMetrics(access: MetricsAccess) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (!isMetricsClientAllowed(access, request.socket.remoteAddress, request.raw.headersDistinct)) {
      throw new Problem('forbidden', 'metrics are not served to this client (see METRICS_ALLOW)');
    }
    const { contentType, text } = await metricsText();
    return reply.type(contentType).send(text);
  };
}
