// The SMTP receiver. Recipients are checked at RCPT time against the database (never an open relay); a
// message is answered 250 only once it is committed, one row per recipient inbox.
import type { Socket } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Pool } from '../../platform/db/index.ts';
import type { ClientLeases } from '../../platform/leases/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { Queue } from '../../platform/queue.ts';
import { lookupName } from '../addresses.ts';
import { smtpDataDuration, smtpReplyCounter, smtpSessions } from '../metrics.ts';
import { boundSessions } from './client-bound.ts';
import { createIngest, type Ingest, type Recipient } from './ingest.ts';
import { createRecipientLookup, type RecipientLookup } from './recipients.ts';

export interface SmtpOptions {
  pool: Pool;
  log: Logger;
  /** The name in the greeting and EHLO answer. */
  hostname: string;
  /** MAIL_MAX_MESSAGE_BYTES: advertised as SIZE, larger messages get 552. */
  maxMessageBytes: number;
  /** PEM certificate and key: STARTTLS is offered when set. */
  tls?: { cert: Buffer; key: Buffer };
  /** Expect a PROXY protocol (v1) header from a load balancer in front. */
  proxy?: boolean;
  /** SMTP_IDLE_TIMEOUT_SECONDS in ms: a connection that sends nothing for this long gets 421 and is closed. */
  idleTimeoutMs?: number;
  /** SMTP_MAX_SESSION_SECONDS in ms: a connection is closed this long after it opened, busy or not. */
  maxSessionMs?: number;
  /** SMTP_MAX_CLIENTS: connections held at once; the next one gets 421 and is closed. */
  maxClients?: number;
  /** The per-client places shared by every process; without them nothing is bounded per client. */
  leases?: ClientLeases;
  /** SMTP_MAX_SESSIONS_PER_CLIENT (0: none): sessions one client address holds at once over every process. */
  maxSessionsPerClient?: number;
  /** Where webhook deliveries are enqueued; without it (tests of other things) mail webhooks are not sent. */
  queue?: Queue;
}

const MAX_RECIPIENTS = 50;
/** The defaults of the settings above (docs/decisions.md, "Hostile input and resource bounds"). */
const SMTP_LIMIT_DEFAULTS = { idleTimeoutMs: 60_000, maxSessionMs: 600_000, maxClients: 1000 };
/**
 * smtp-server refuses longer command lines with 421 (its own default is 16 KiB, room for AUTH blobs we never
 * offer); RFC 5321 4.5.3.1.4 allows 512 octets, and an address of 254 with SIZE and BODY fits well under 2 KiB.
 */
const MAX_COMMAND_LENGTH = 2048;

/** A reply with an SMTP code; smtp-server sends `responseCode message`. */
function reply(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Inboxes accepted at RCPT time, kept on the session until DATA. */
const accepted = new WeakMap<SMTPServerSession, Map<string, Recipient>>();

export function createSmtpServer(options: SmtpOptions): SMTPServer {
  const { pool, log } = options;
  const ingest = createIngest(pool, log, options.queue);
  const lookup = createRecipientLookup(pool);

  const server = new SMTPServer({
    name: options.hostname,
    banner: 'domainkit ESMTP',
    size: options.maxMessageBytes,
    rejectOversized: true,
    maxRecipients: MAX_RECIPIENTS,
    authOptional: true,
    disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(options.tls ? { cert: options.tls.cert, key: options.tls.key } : {}),
    useProxy: options.proxy ?? false,
    // Not a log: smtp-server tells each reply it sends to its logger, and this one counts them.
    logger: smtpReplyCounter,
    socketTimeout: options.idleTimeoutMs ?? SMTP_LIMIT_DEFAULTS.idleTimeoutMs,
    maxClients: options.maxClients ?? SMTP_LIMIT_DEFAULTS.maxClients,
    maxCommandLength: MAX_COMMAND_LENGTH,
    ...boundSessions(options.leases, options.maxSessionsPerClient ?? 0, log),

    onMailFrom(_address, session, callback) {
      accepted.set(session, new Map());
      callback();
    },

    onRcptTo(address: SMTPServerAddress, session, callback) {
      const lower = lookupName(address.address);
      lookup.find(lower).then(
        (found) => {
          if (found.kind === 'foreign') return callback(reply(550, '5.7.1 Relaying denied: not a domain of this server'));
          if (found.kind === 'unknown') return callback(reply(550, '5.1.1 No such inbox here (unknown or expired)'));
          let inboxes = accepted.get(session);
          if (!inboxes) {
            inboxes = new Map();
            accepted.set(session, inboxes);
          }
          // One copy per inbox, however many of its (tagged) addresses are named: the first one's tag.
          if (!inboxes.has(found.inboxId))
            inboxes.set(found.inboxId, { address: lower, inboxId: found.inboxId, webhook: found.webhook, tag: found.tag });
          callback();
        },
        (err: unknown) => {
          log.error({ err }, 'could not look a recipient up');
          callback(reply(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    },

    onData(stream: SMTPServerDataStream, session, callback) {
      const timer = smtpDataDuration.startTimer();
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        // Past the limit the rest is read and dropped: the message will be refused whole.
        bytes += chunk.length;
        if (bytes <= options.maxMessageBytes) chunks.push(chunk);
      });
      stream.on('error', (err) => callback(reply(451, `4.3.0 ${err.message}`)));
      stream.on('end', () => {
        // smtp-server answers 552 itself (rejectOversized); nothing is stored.
        if (stream.sizeExceeded) return callback(reply(552, '5.3.4 Message exceeds the size limit'));
        const recipients = [...(accepted.get(session)?.values() ?? [])];
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        storeOnce(ingest, lookup, { from, recipients }, Buffer.concat(chunks)).then(
          (ids) => {
            timer();
            callback(null, `2.0.0 Ok: stored ${ids.length} ${ids.length === 1 ? 'copy' : 'copies'}`);
          },
          () => callback(reply(451, '4.3.0 Could not store the message now, try again later')),
        );
      });
    },
  });
  server.on('error', (err) => log.warn({ err }, 'SMTP connection error'));
  server.server.on('connection', () => smtpSessions.inc());
  limitSessions(server, options.maxSessionMs ?? SMTP_LIMIT_DEFAULTS.maxSessionMs);
  return server;
}

/**
 * Stores the message; recipients whose remembered inbox was deleted since are looked up afresh, and those that
 * now name another live inbox (the address was given to a new one) get their copy there. Resolves with the
 * stored ids.
 */
async function storeOnce(
  ingest: Ingest,
  lookup: RecipientLookup,
  envelope: { from: string; recipients: Recipient[] },
  raw: Buffer,
): Promise<string[]> {
  const { ids, lost } = await ingest.store(envelope, raw);
  if (lost.length === 0) return ids;
  const taken = new Set(envelope.recipients.map((r) => r.inboxId));
  const again = new Map<string, Recipient>();
  try {
    for (const r of lost) {
      lookup.forget(r.address);
      const found = await lookup.find(r.address);
      if (found.kind === 'inbox' && !taken.has(found.inboxId) && !again.has(found.inboxId)) {
        again.set(found.inboxId, { ...r, inboxId: found.inboxId, webhook: found.webhook, tag: found.tag });
      }
    }
    if (again.size === 0) return ids;
    const retried = await ingest.store({ from: envelope.from, recipients: [...again.values()] }, raw);
    return [...ids, ...retried.ids];
  } catch {
    // The first copies are committed: a 451 now would have the sender deliver them twice.
    return ids;
  }
}

/**
 * The idle timeout restarts with every byte, so a client that sends one byte a minute would hold its connection
 * for ever; this cap does not. It works on the TCP socket, below TLS and smtp-server, so it simply closes it: a
 * sender treats a dropped connection as a temporary failure and retries, and nothing half-received is stored.
 */
function limitSessions(server: SMTPServer, maxSessionMs: number): void {
  server.server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), maxSessionMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
