// The jobs API on a real socket over a test database, started as `domainkit jobs-api` starts it (startRoles),
// with the queue it enqueues into, and keys to call it.
import { loadConfig } from '../../src/config.ts';
import { makeKey } from '../../src/jobs/index.ts';
import type { Scope } from '../../src/jobs/keys.ts';
import { createLogger, type Logger } from '../../src/platform/log.ts';
import type { Queue } from '../../src/platform/queue.ts';
import { startRoles, type Role, type RoleOverrides } from '../../src/roles.ts';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './db.ts';

export interface JobsApi {
  url: string;
  /** The queue the API enqueues into. */
  queue: Queue;
  close(): Promise<void>;
}

export interface JobsApiOptions {
  /** Settings beyond the test database and an ephemeral port on 127.0.0.1 (JOBS_MAX_DOMAINS, ALLOW_PRIVATE_NETWORK, …). */
  env?: Record<string, string>;
  /**
   * The worker role too, in the same process as `domainkit start` runs it: the engine runs the jobs and sends
   * their callbacks (the webhook deliveries).
   */
  worker?: boolean;
  /** Silent unless given. */
  log?: Logger;
  overrides?: RoleOverrides;
}

export async function startJobsApi(db: TestDatabase, options: JobsApiOptions = {}): Promise<JobsApi> {
  const env = { DATABASE_URL: db.url, HOST: '127.0.0.1', JOBS_PORT: '0', LOG_LEVEL: 'silent', ...options.env };
  const config = loadConfig(env, options.overrides?.sources);
  const roles: Role[] = ['jobs-api', ...(options.worker ? (['worker'] as const) : [])];
  const running = await startRoles(config, options.log ?? createLogger({ level: 'silent' }), roles, options.overrides);
  return { url: running.addresses['jobs-api']!, queue: running.queue!, close: () => running.stop() };
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
export function useJobsApi(options: JobsApiOptions = {}): { db: TestDatabase; api: JobsApi } {
  const context = {} as { db: TestDatabase; api: JobsApi };
  beforeAll(async () => {
    context.db = await createTestDatabase();
    context.api = await startJobsApi(context.db, options);
  });
  afterAll(async () => {
    await context.api?.close();
    await context.db?.pool.end();
  });
  return context;
}
