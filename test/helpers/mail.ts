// The mail API and the SMTP receiver on real sockets over a test database, in this process, started as
// `domainkit mail-api smtp` starts them (startRoles, from settings), and small clients for both: fetch for the
// API, nodemailer for SMTP.
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/platform/log.ts';
import { startRoles, type Role, type RoleOverrides } from '../../src/roles.ts';
import { afterAll, beforeAll } from 'vitest';
import { startCli, type RunningCli } from './cli.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { parseExposition } from './prometheus.ts';

export const DOMAIN = 'inbox.test';

export interface Mail {
  url: string;
  smtpPort: number;
  /** fetch() against the API; a body is sent as JSON. */
  call(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** A fresh anonymous inbox's address (random local part unless given). */
  inbox(localPart?: string): Promise<string>;
  /** Sends with nodemailer over SMTP; resolves with nodemailer's info (the server's reply in `response`). */
  send(message: SendMailOptions): Promise<SentInfo>;
  /**
   * SSE streams held open now, as the API's `/metrics` counts them (domainkit_sse_subscribers). The gauge is
   * the process's: it is this API's while no other mail API of the test file runs.
   */
  liveSubscribers(): Promise<number>;
  close(): Promise<void>;
}

export type SentInfo = { response: string; accepted: unknown[]; rejected: unknown[]; messageId: string };

export interface MailOptions {
  /** MAIL_DOMAINS (default: DOMAIN alone); the first is the name SMTP greets with. */
  domains?: string[];
  /** MAIL_ANON_TTL_SECONDS. */
  anonTtlSeconds?: number;
  /** MAIL_SSE_PING_SECONDS. */
  ssePingSeconds?: number;
  /** MAIL_PORT: a free port unless given (a restart on the port clients knew). SMTP always takes a free one. */
  port?: number;
  /** Other settings by name: MAIL_JWT_SECRET, ALLOW_PRIVATE_NETWORK, MAIL_MAX_MESSAGE_BYTES, SMTP_*, HTTP_*, … */
  env?: Record<string, string>;
  /**
   * The worker role too, in the same process as `domainkit start` runs it: webhook deliveries (and the jobs
   * engine and the sweeper, with nothing to do).
   */
  worker?: boolean;
  /** Silent unless given. */
  log?: Logger;
  overrides?: RoleOverrides;
}

export async function startMail(db: TestDatabase, options: MailOptions = {}): Promise<Mail> {
  const env = {
    DATABASE_URL: db.url,
    HOST: '127.0.0.1',
    MAIL_PORT: String(options.port ?? 0),
    SMTP_PORT: '0',
    LOG_LEVEL: 'silent',
    MAIL_DOMAINS: (options.domains ?? [DOMAIN]).join(','),
    ...(options.anonTtlSeconds === undefined ? {} : { MAIL_ANON_TTL_SECONDS: String(options.anonTtlSeconds) }),
    ...(options.ssePingSeconds === undefined ? {} : { MAIL_SSE_PING_SECONDS: String(options.ssePingSeconds) }),
    ...options.env,
  };
  const config = loadConfig(env, options.overrides?.sources);
  const roles: Role[] = ['mail-api', 'smtp', ...(options.worker ? (['worker'] as const) : [])];
  const running = await startRoles(config, options.log ?? createLogger({ level: 'silent' }), roles, options.overrides);
  const url = running.addresses['mail-api']!;
  const smtpPort = Number(new URL(running.addresses.smtp!).port);

  const call: Mail['call'] = (path, init = {}) =>
    fetch(`${url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
  return {
    url,
    smtpPort,
    call,
    async inbox(localPart) {
      const res = await call('/api/v1/inboxes/generate', { body: localPart ? { local_part: localPart } : {} });
      if (res.status !== 201) throw new Error(`generate answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { address: string }).address;
    },
    send: (message) => transport.sendMail(message) as Promise<SentInfo>,
    async liveSubscribers() {
      const res = await call('/metrics');
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
      return parseExposition(await res.text()).sum('domainkit_sse_subscribers');
    },
    async close() {
      transport.close();
      await running.stop();
    },
  };
}

/**
 * A test file's database and mail service: made before its tests, closed after them. The fields are set once
 * `beforeAll` has run, so read them inside hooks and tests.
 */
export function useMail(options: MailOptions = {}): { db: TestDatabase; mail: Mail } {
  const context = {} as { db: TestDatabase; mail: Mail };
  beforeAll(async () => {
    context.db = await createTestDatabase();
    context.mail = await startMail(context.db, options);
  });
  afterAll(async () => {
    await context.mail?.close();
    await context.db?.pool.end();
  });
  return context;
}

/**
 * `domainkit smtp` as a process of its own over the test file's database (started before its tests, stopped
 * after): mail it stores reaches the API of `t` only through PostgreSQL. Returns its port, once started.
 */
export function useSmtpProcess(t: { db: TestDatabase }): () => number {
  let smtp: RunningCli | undefined;
  beforeAll(async () => {
    smtp = await startCli(['smtp'], { DATABASE_URL: t.db.url, SMTP_PORT: '0', HOST: '127.0.0.1', MAIL_DOMAINS: DOMAIN });
  });
  afterAll(async () => {
    await smtp?.stop('SIGTERM');
  });
  return () => Number(new URL(smtp!.addresses.smtp!).port);
}
