// SMTP_MAX_SESSIONS_PER_CLIENT: one client address (the socket's peer, or the PROXY protocol's address when
// SMTP_PROXY_PROTOCOL is on: smtp-server gives it as session.remoteAddress, IPv4-mapped forms unwrapped) holds
// at most so many sessions at once over every receiver process. The place is taken before the greeting and
// given back when the connection closes; beyond the bound the client gets 421 4.7.0 and is closed, which a
// sending server treats as "try again later".
import type { SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { ClientLeases, Lease } from '../../platform/leases/index.ts';
import type { Logger } from '../../platform/log.ts';

/** The kind of place a session holds (platform/leases). */
export const SMTP_SESSION_KIND = 'mail.smtp';

function reply(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** What a session holds: its place once taken, and whether it closed meanwhile (the place then goes back at once). */
type Held = { lease?: Lease; closed?: true };

/** smtp-server's onConnect and onClose for the bound; none when there is no bound. */
export function boundSessions(
  leases: ClientLeases | undefined,
  bound: number,
  log: Logger,
): Pick<SMTPServerOptions, 'onConnect' | 'onClose'> {
  if (!leases || bound <= 0) return {};
  const held = new Map<string, Held>();
  return {
    onConnect(session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const state: Held = {};
      held.set(session.id, state);
      leases.take(SMTP_SESSION_KIND, session.remoteAddress, bound).then(
        (lease) => {
          if (!lease) return callback(reply(421, `4.7.0 Too many connections from ${session.remoteAddress}, try again later`));
          if (state.closed) return lease.release();
          state.lease = lease;
          callback();
        },
        (err: unknown) => {
          log.warn({ err }, 'could not take an SMTP session place');
          callback(reply(421, '4.3.0 Temporary failure, try again later'));
        },
      );
    },
    onClose(session: SMTPServerSession) {
      const state = held.get(session.id);
      held.delete(session.id);
      if (!state) return;
      state.closed = true;
      state.lease?.release();
    },
  };
}
