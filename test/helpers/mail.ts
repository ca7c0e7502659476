// The mail API and the SMTP receiver on real sockets over a test database, in this process, and small clients
// for both: fetch for the API, nodemailer for SMTP.
import type { AddressInfo } from 'node:net';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { buildMailApp, createSmtpServer, ensureDomains, type MailAppDeps, type SmtpOptions } from '../../src/mail/index.ts';
import { createLogger } from '../../src/platform/log.ts';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { serve } from './http.ts';

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
  /** SSE streams the API holds open now. */
  liveSubscribers(): number;
  close(): Promise<void>;
}

export type SentInfo = { response: string; accepted: unknown[]; rejected: unknown[]; messageId: string };

export async function startMail(
  db: TestDatabase,
  options: {
    domains?: string[];
    anonTtlSeconds?: number;
    ssePingSeconds?: number;
    port?: number;
    smtp?: Partial<SmtpOptions>;
    app?: Partial<MailAppDeps>;
  } = {},
): Promise<Mail> {
  const log = createLogger({ level: 'silent' });
  await ensureDomains(db.pool, options.domains ?? [DOMAIN]);
  const app = await buildMailApp({
    pool: db.pool,
    log,
    version: 'test',
    anonTtlSeconds: options.anonTtlSeconds ?? 3600,
    databaseUrl: db.url,
    ssePingSeconds: options.ssePingSeconds ?? 15,
    ...options.app,
  });
  const served = await serve(app, options.port);
  const smtp = createSmtpServer({ pool: db.pool, log, hostname: DOMAIN, maxMessageBytes: 10 * 1024 * 1024, ...options.smtp });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const call: Mail['call'] = (path, init = {}) =>
    fetch(`${served.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
  return {
    url: served.url,
    smtpPort,
    call,
    async inbox(localPart) {
      const res = await call('/api/v1/inboxes/generate', { body: localPart ? { local_part: localPart } : {} });
      if (res.status !== 201) throw new Error(`generate answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { address: string }).address;
    },
    send: (message) => transport.sendMail(message) as Promise<SentInfo>,
    liveSubscribers: () => (app as unknown as { liveSubscribers(): number }).liveSubscribers(),
    async close() {
      transport.close();
      await served.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}

/**
 * A test file's database and mail service: made before its tests, closed after them. The fields are set once
 * `beforeAll` has run, so read them inside hooks and tests.
 */
export function useMail(options: Parameters<typeof startMail>[1] = {}): { db: TestDatabase; mail: Mail } {
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
