// GET /api/v1/inboxes/{address}/wait: a long poll for the oldest message after a cursor that matches the
// filters, answered with the message, its code and the link to follow; or, at the deadline, a timeout with the
// cursor to call again with. The waiting itself is realtime/waiters.ts's.
import { Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { lookupName } from '../addresses.ts';
import type { Waiters } from '../realtime/index.ts';
import type { Access } from './access.ts';
import type { PlaceTaker } from './client-bounds.ts';
import type { MailAppDeps } from './deps.ts';
import { AddressParams, OPTIONAL_SECURITY } from './schemas.ts';
import { waitMessageView } from './views.ts';
import { waitQuery } from './wait-schemas.ts';

export function waitRoutes(deps: MailAppDeps, waiters: Waiters, access: Access, takePlace: PlaceTaker): RoutePlugin {
  return async (app) => {
    app.get(
      '/api/v1/inboxes/:address/wait',
      {
        schema: {
          tags: ['inboxes'],
          summary: 'Wait for a message (long poll): the oldest one after a cursor that matches the filters',
          description:
            'Answers as soon as the inbox has a message newer than `after` (a message id; without it, newer than the newest ' +
            'one when the call starts) that matches every filter given: `{status: "message", cursor, message, otp, link}`, ' +
            'the message as GET /api/v1/messages/{id} shows it (not marked read). After `timeout` seconds without one: ' +
            '`{status: "timeout", cursor}`; call again with `after=cursor` and nothing is missed. "Newer" is a greater ' +
            'message id (UUIDv7, in the order stored).',
          security: OPTIONAL_SECURITY,
          params: AddressParams,
          querystring: waitQuery(deps.waitMaxSeconds),
          response: { 200: { $ref: 'WaitResult' }, ...problemResponses(400, 404, 429, 503) },
        },
      },
      async (request, reply) => {
        // A private inbox is its owner's alone: anyone else gets the 404 of an unknown address.
        const inbox = await access.liveInbox(request, lookupName(request.params.address));
        const q = request.query;
        // MAIL_WAIT_MAX_PER_CLIENT: held, over every process, until the wait is answered or its client leaves.
        const place = await takePlace(request);
        // A client that goes away ends its wait at once ('close' comes before the answer only when it left).
        const gone = new AbortController();
        reply.raw.once('close', () => gone.abort());
        const socket = request.raw.socket;
        if (socket.destroyed) gone.abort(); // it left while the inbox was looked up
        // The socket's idle timeout (platform/http/limits.ts) must not cut a wait that sends nothing for longer.
        const idle = socket.timeout ?? 0;
        socket.setTimeout(0);
        const outcome = await waiters
          .wait({
            inbox,
            after: q.after?.toLowerCase(),
            filters: { from: q.from, subject: q.subject, tag: q.tag, hasOtp: q.has_otp, linkKind: q.link_kind },
            timeoutMs: (q.timeout ?? 0) * 1000,
            signal: gone.signal,
          })
          .finally(() => {
            place.release();
            if (!socket.destroyed) socket.setTimeout(idle);
          });
        switch (outcome.status) {
          case 'message':
            return waitMessageView(outcome.message, q.link_kind);
          case 'timeout':
            return { status: 'timeout', cursor: outcome.cursor };
          case 'unavailable':
            throw new Problem('service_unavailable', 'the messages could not be read; call again with the same cursor');
          case 'gone':
            return reply.hijack(); // nobody to answer
        }
      },
    );
  };
}
