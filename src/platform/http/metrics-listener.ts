// METRICS_PORT: an HTTP listener of its own for processes whose roles have none (smtp, worker). It is an app
// like the APIs, with no routes of its own: `/metrics` under the same access rule, and `/healthz` and
// `/readyz`, which give those roles a liveness and readiness probe too.
import type { Pool } from '../db/index.ts';
import type { Logger } from '../log.ts';
import type { MetricsAccess } from '../metrics/index.ts';
import { createApp } from './app.ts';
import type { App } from './types.ts';
import type { HttpLimits } from './limits.ts';

export interface MetricsAppOptions {
  pool: Pool;
  log: Logger;
  version: string;
  access: MetricsAccess;
  limits?: HttpLimits | undefined;
}

export function buildMetricsApp(options: MetricsAppOptions): Promise<App> {
  return createApp({
    title: 'domainkit metrics',
    description: 'Prometheus metrics of this process at /metrics, and its health probes.',
    version: options.version,
    log: options.log,
    pool: options.pool,
    limits: options.limits,
    service: 'metrics',
    metricsAccess: options.access,
    routes: async () => {},
  });
}
