// The jobs API on a real socket over a test database, with the queue it enqueues into, and keys to call it.
import { buildJobsApp, makeKey, type JobsAppDeps } from '../../src/jobs/index.ts';
import type { Scope } from '../../src/jobs/keys.ts';
import type { App } from '../../src/platform/http/index.ts';
import { createLogger } from '../../src/platform/log.ts';
import { startQueue, stopQueue, type Queue } from '../../src/platform/queue.ts';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { serve } from './http.ts';

export interface JobsApi {
  url: string;
  app: App;
  queue: Queue;
  close(): Promise<void>;
}

export async function startJobsApi(db: TestDatabase, overrides: Partial<JobsAppDeps> = {}): Promise<JobsApi> {
  const queue = await startQueue(db.url, createLogger({ level: 'silent' }), { work: false });
  const app = await buildJobsApp({
    pool: db.pool,
    log: createLogger({ level: 'silent' }),
    version: 'test',
    queue,
    maxDomains: 1000,
    allowPrivateNetwork: false,
    ...overrides,
  });
  const served = await serve(app);
  return {
    url: served.url,
    app,
    queue,
    close: async () => {
      await served.close();
      await stopQueue(queue);
    },
  };
}

export const ALL_SCOPES: Scope[] = ['jobs:create', 'jobs:read', 'keys:admin', 'keys:read'];

/** A fresh token of the tenant (created if new) with these scopes. */
export async function tokenFor(db: TestDatabase, tenant: string, scopes: Scope[] = ALL_SCOPES, name = 'test'): Promise<string> {
  return (await makeKey(db.pool, tenant, name, scopes)).token;
}

/** fetch() with the key as a Bearer token and JSON bodies. */
export function client(base: string, token: string) {
  return (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
}

/**
 * A test file's database and jobs API: made before its tests, closed after them. The fields are set once
 * `beforeAll` has run, so read them inside hooks and tests.
 */
export function useJobsApi(overrides: Partial<JobsAppDeps> = {}): { db: TestDatabase; api: JobsApi } {
  const context = {} as { db: TestDatabase; api: JobsApi };
  beforeAll(async () => {
    context.db = await createTestDatabase();
    context.api = await startJobsApi(context.db, overrides);
  });
  afterAll(async () => {
    await context.api?.close();
    await context.db?.pool.end();
  });
  return context;
}
