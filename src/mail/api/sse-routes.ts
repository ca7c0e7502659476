// GET /api/v1/sse/inbox/{address}: a live inbox as Server-Sent Events. An unknown or expired inbox (or a private
// one without its owner's credentials, sent as headers: read the stream with fetch, since EventSource sends
// none) is a 404 problem before any stream; after that the response belongs to the hub until the client goes.
import type { OutgoingHttpHeaders } from 'node:http';
import { problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { lookupName } from '../addresses.ts';
import type { Hub } from '../realtime/index.ts';
import type { Access } from './access.ts';
import type { PlaceTaker } from './client-bounds.ts';
import { AddressParams, OPTIONAL_SECURITY } from './schemas.ts';

export function sseRoutes(access: Access, hub: Hub, takePlace: PlaceTaker): RoutePlugin {
  return async (app) => {
    app.get(
      '/api/v1/sse/inbox/:address',
      {
        schema: {
          tags: ['events'],
          summary: 'Live events of an inbox (text/event-stream): connected, message (with id), ping',
          description:
            'Events: `connected` {address}; `message` {type: "new_message", id, from, subject, has_otp, tag} with `id:` the message id; ' +
            '`ping` {ts} every MAIL_SSE_PING_SECONDS. Send `Last-Event-ID` to receive first the messages stored after that one.',
          security: OPTIONAL_SECURITY,
          params: AddressParams,
          response: {
            200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            ...problemResponses(404, 429),
          },
        },
      },
      async (request, reply) => {
        const inbox = await access.liveInbox(request, lookupName(request.params.address));
        // MAIL_SSE_MAX_PER_CLIENT: held, over every process, until the stream ends however it ends.
        const place = await takePlace(request);
        reply.raw.once('close', () => place.release());
        if (request.raw.socket.destroyed) place.release(); // it left while the place was taken
        reply.hijack();
        const res = reply.raw;
        // The headers set before the stream (X-Request-Id, the RateLimit fields) go with its own.
        res.writeHead(200, {
          ...(reply.getHeaders() as OutgoingHttpHeaders),
          'content-type': 'text/event-stream; charset=utf-8',
          // Proxies and browsers must neither cache nor buffer the stream (X-Accel-Buffering: nginx).
          'cache-control': 'no-cache, no-transform',
          'x-accel-buffering': 'no',
          connection: 'keep-alive',
        });
        res.flushHeaders();
        // The socket stays open for as long as the client wants: no idle timeout, and small writes go at once.
        request.raw.socket.setTimeout(0);
        request.raw.socket.setNoDelay(true);
        hub.subscribe(inbox, res, request.headers['last-event-id']);
      },
    );
  };
}
