// The one metrics registry of a process. A process may run every role (`domainkit start`), so each service
// registers its metrics here, next to what it measures, and every listener of the process serves the same text.
import { collectDefaultMetrics, Registry } from 'prom-client';

export const registry = new Registry();

// Node's own process metrics keep their standard names (process_*, nodejs_*), which ready-made dashboards
// expect; only our metrics carry the domainkit_ prefix.
collectDefaultMetrics({ register: registry });

/** The text exposition of every metric of this process, and its content type. */
export async function metricsText(): Promise<{ contentType: string; text: string }> {
  return { contentType: registry.contentType, text: await registry.metrics() };
}
