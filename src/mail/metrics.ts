// The mail service's metrics: the SMTP receiver's sessions, replies and DATA time, the messages it stores, and
// the live-inbox streams and waits held open. Registered on the platform's registry, so every listener of the
// process serves them.
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '../platform/metrics/index.ts';

export const smtpSessions = new Counter({
  name: 'domainkit_smtp_sessions_total',
  help: 'SMTP connections accepted (including those then refused with 421 for too many clients).',
  registers: [registry],
});

const smtpReplies = new Counter({
  name: 'domainkit_smtp_replies_total',
  help: 'SMTP replies sent, by reply code (250, 354, 421, 550, ...).',
  labelNames: ['code'] as const,
  registers: [registry],
});

/** From the DATA command to the 250 that follows the commit: transfer, parsing, extraction and the write. */
export const smtpDataDuration = new Histogram({
  name: 'domainkit_smtp_data_duration_seconds',
  help: 'Seconds from the DATA command to the 250 reply of a stored message.',
  // From a small message committed alone (milliseconds) to a 10 MiB one sent over a slow link.
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const messagesStored = new Counter({
  name: 'domainkit_messages_stored_total',
  help: 'Messages committed to the database, one per recipient inbox.',
  registers: [registry],
});

export const sseSubscribers = new Gauge({
  name: 'domainkit_sse_subscribers',
  help: 'Live-inbox (SSE) streams this process holds open.',
  registers: [registry],
});

export const mailWaiters = new Gauge({
  name: 'domainkit_mail_waiters',
  help: 'Waits for a message (GET /api/v1/inboxes/{address}/wait) this process holds open.',
  registers: [registry],
});

/**
 * smtp-server's `logger` option. smtp-server reports each reply it writes to a client as a debug entry
 * (`tnx: 'send'`, message `S:`, then the reply line): counting those counts every reply, its own (greeting,
 * 421, syntax errors) as well as ours, and only replies that reached the socket.
 */
export const smtpReplyCounter = {
  level: () => undefined,
  trace: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  fatal: () => undefined,
  debug(entry: unknown, message?: unknown, reply?: unknown): void {
    if (message !== 'S:' || typeof reply !== 'string' || (entry as { tnx?: unknown } | null)?.tnx !== 'send') return;
    const code = /^[2-5]\d\d/.exec(reply);
    if (code) smtpReplies.inc({ code: code[0] });
  },
};
