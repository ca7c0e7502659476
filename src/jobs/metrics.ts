// The jobs service's metrics: tasks settled, requests to providers, and each source's queue depth, read from
// PostgreSQL when scraped. Registered on the platform's registry, so every listener of the process serves them.
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Pool } from '../platform/db/index.ts';
import type { Logger } from '../platform/log.ts';
import { registry } from '../platform/metrics/index.ts';
import { OutboundError, type Outbound } from '../platform/net/index.ts';
import { queueDepths } from './store/index.ts';

/** How long a scrape waits for the queue depths before it leaves them out. */
const QUEUE_DEPTH_TIMEOUT_MS = 1000;

const tasks = new Counter({
  name: 'domainkit_tasks_total',
  help: 'Tasks settled by this process, by source and outcome: ok, the error code of the result row, or retried (a transient error put back for a later attempt).',
  labelNames: ['source', 'outcome'] as const,
  registers: [registry],
});

const upstreamDuration = new Histogram({
  name: 'domainkit_upstream_request_duration_seconds',
  help: 'Requests to providers (and ping requests to checked domains), by provider and status: the HTTP status code, or why no answer came (timeout, connect, dns, tls, refused_address, ...). _count is the number of requests.',
  labelNames: ['provider', 'status'] as const,
  // Providers answer in tens of milliseconds to seconds; requests give up at 8 s (ping) and 30 s (providers).
  buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/** The pools whose queue depths this process reports (the processes that run the jobs API or a worker). */
const depthSources = new Map<Pool, { log: Logger; sources: readonly string[] }>();

new Gauge({
  name: 'domainkit_queue_depth',
  help: 'Tasks waiting or running of queued and running jobs, by source, read from PostgreSQL at each scrape (absent when the read took over 1 s or failed).',
  labelNames: ['source'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const [pool, { log, sources }] of depthSources) {
      try {
        const depths = await withDeadline(queueDepths(pool, QUEUE_DEPTH_TIMEOUT_MS), QUEUE_DEPTH_TIMEOUT_MS);
        for (const source of sources) this.inc({ source }, depths.get(source) ?? 0);
      } catch (err) {
        log.warn({ err }, 'queue depths left out of the metrics: the database did not answer in time');
      }
    }
  },
});

/** Reports the queue depths of `sources` in `pool`'s database from now on; returns the function that stops it. */
export function reportQueueDepth(pool: Pool, log: Logger, sources: readonly string[]): () => void {
  depthSources.set(pool, { log, sources });
  return () => depthSources.delete(pool);
}

export function countTasks(source: string, outcome: string, count = 1): void {
  if (count > 0) tasks.inc({ source, outcome }, count);
}

/**
 * `http` with every request's status and time recorded under `provider` (a source descriptor's; ping's
 * requests go to the domains it checks), whichever adapter makes it.
 */
export function measured(http: Outbound, provider: string): Outbound {
  return {
    async request(url, options) {
      const started = performance.now();
      let status = 'error';
      try {
        const res = await http.request(url, options);
        status = String(res.status);
        return res;
      } catch (err) {
        if (err instanceof OutboundError) status = err.kind;
        throw err;
      } finally {
        upstreamDuration.observe({ provider, status }, (performance.now() - started) / 1000);
      }
    },
    close: () => http.close(),
  };
}

/** Rejects after `ms` even while waiting for a pool connection, which a statement timeout does not cover. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
