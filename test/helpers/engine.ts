// What the engine tests run against: worker processes (test/fixtures/jobs-worker.ts: `domainkit worker` as
// startRoles wires it, with the resolver and timings a test replaces) and local web sites that ping reaches
// through the worker's resolver; and `useEngine`, a test file's jobs service made of them and the fake providers.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { Fake, FakeOptions } from '../../src/dev/fakes/server.ts';
import { startCli, type RunningCli } from './cli.ts';
import type { TestDatabase } from './db.ts';
import { startFakes, type FakeName, type Fakes } from './fakes.ts';
import { client, tokenFor, useJobsApi, type JobsApi } from './jobs.ts';
import { startReceiver, type Receiver } from './receiver.ts';

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
    { script: WORKER },
  );
}

export interface EngineOptions<K extends FakeName> {
  /** The fake providers to start, each with its options; the worker is given their settings (startFakes). */
  fakes?: Record<K, FakeOptions>;
  /** The worker's settings beyond the fakes' (a setting here wins over theirs). */
  env?: Record<string, string>;
  /** How the sites answer (startSites). */
  sites?: Parameters<typeof startSites>[0];
  /** The worker's resolver; by default every `*.example` name is the sites' address. */
  hosts?: Record<string, string>;
}

export interface Engine<K extends FakeName> {
  db: TestDatabase;
  api: JobsApi;
  sites: Sites;
  fakes: Record<K, Fake>;
  /** A webhook receiver answering 200 to every callback. */
  receiver: Receiver;
  worker: RunningCli;
  /** The jobs API as the tenant `acme`, with every scope. */
  call: ReturnType<typeof client>;
}

/**
 * A test file's jobs service with a worker process of its own: the database and jobs API of `useJobsApi`, the
 * fakes named, the sites and a receiver. Made before the file's tests and stopped after them, after the file's
 * own `afterAll` hooks (registered later, so run first: one can release what a site holds). The fields are set
 * once `beforeAll` has run, so read them inside hooks and tests.
 */
export function useEngine<K extends FakeName = never>(options: EngineOptions<K> = {}): Engine<K> {
  // The API may then call back to the receiver on loopback, as the worker (startWorker) reaches the local sites.
  const base = useJobsApi({ env: { ALLOW_PRIVATE_NETWORK: 'true' } });
  const context = {} as Engine<K>;
  let fakes: Fakes<K> | undefined;
  beforeAll(async () => {
    context.db = base.db;
    context.api = base.api;
    [context.sites, fakes, context.receiver] = await Promise.all([
      startSites(options.sites),
      startFakes(options.fakes ?? ({} as Record<K, FakeOptions>)),
      startReceiver(() => 200),
    ]);
    context.fakes = fakes.fakes;
    context.call = client(base.api.url, await tokenFor(base.db, 'acme'));
    context.worker = await startWorker(base.db.url, context.sites, options.hosts ?? { '*.example': '127.0.0.1' }, {
      ...fakes.env,
      ...options.env,
    });
  });
  afterAll(async () => {
    await context.worker?.stop();
    await Promise.all([context.sites?.close(), context.receiver?.close(), fakes?.close()]);
  });
  return context;
}
