// What the engine tests run against: worker processes (test/fixtures/jobs-worker.ts: `domainkit worker` as
// startRoles wires it, with the resolver and timings a test replaces) and local web sites that ping reaches
// through the worker's resolver.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startCli, type RunningCli } from './cli.ts';

const WORKER = fileURLToPath(new URL('../fixtures/jobs-worker.ts', import.meta.url));

export interface SiteRequest {
  host: string;
  path: string;
  at: number;
}

export interface Sites {
  port: number;
  /** The most requests the server had open at one time. */
  maxInFlight(): number;
  /** A port with nothing listening (where https:// goes). */
  closedPort: number;
  requests: SiteRequest[];
  close(): Promise<void>;
}

/** One server for every site; `handle` decides each answer by host (default 200 "ok"), after `latencyMs`. */
export async function startSites(
  options: { latencyMs?: number; handle?: (host: string, req: IncomingMessage, res: ServerResponse) => boolean } = {},
): Promise<Sites> {
  const requests: SiteRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    requests.push({ host, path: req.url ?? '/', at: Date.now() });
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.on('close', () => inFlight--);
    setTimeout(() => {
      if (options.handle?.(host, req, res)) return;
      res.end('ok');
    }, options.latencyMs ?? 0);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  return {
    port: (server.address() as AddressInfo).port,
    maxInFlight: () => maxInFlight,
    closedPort,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Starts a worker process; `hosts` maps names to addresses, everything else fails to resolve. */
export function startWorker(
  databaseUrl: string,
  sites: Sites,
  hosts: Record<string, string>,
  env: Record<string, string> = {},
): Promise<RunningCli> {
  return startCli(
    [],
    {
      DATABASE_URL: databaseUrl,
      ALLOW_PRIVATE_NETWORK: 'true',
      TEST_HOSTS: JSON.stringify(hosts),
      TEST_PING_PORT: String(sites.port),
      TEST_PING_TLS_PORT: String(sites.closedPort),
      ...env,
    },
    60_000,
    WORKER,
  );
}
