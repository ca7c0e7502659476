// One message: read (marks it read), raw bytes, delete. A message of an expired inbox is gone (404).
import { Type } from 'typebox';
import { isUuid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { detectOtp, extractLinks, OTP_DETECTOR_VERSION } from '../extract/index.ts';
import { deleteMessage, extractionOf, rawMessage, readMessage, storeExtraction, type ExtractionRow } from '../store.ts';
import type { MailAppDeps } from './app.ts';
import { IdParams } from './schemas.ts';
import { messageView } from './views.ts';

const TAGS = ['messages'];

export function messagesRoutes(deps: MailAppDeps): RoutePlugin {
  const notFound = (id: string) => new Problem('not_found', `no message ${id}`);

  /**
   * A message's extraction as the current detector sees it: a message an older detector found no code in (or
   * stored before links were kept) is looked at again now, and the new finding is stored.
   */
  async function current(id: string): Promise<ExtractionRow> {
    const message = isUuid(id) ? await extractionOf(deps.pool, id.toLowerCase()) : undefined;
    if (!message) throw notFound(id);
    const stale = message.otp === null && message.otpVersion < OTP_DETECTOR_VERSION;
    if (!stale && message.links !== null) return message;
    const input = { subject: message.subject, text: message.bodyText, html: message.bodyHtml };
    const found = {
      otp: stale ? detectOtp(input) : message.otp,
      otpVersion: stale ? OTP_DETECTOR_VERSION : message.otpVersion,
      links: message.links ?? extractLinks(input.html, input.text),
    };
    await storeExtraction(deps.pool, message.id, found);
    return { ...message, ...found };
  }

  return async (app) => {
    app.get(
      '/api/v1/messages/:id',
      {
        schema: {
          tags: TAGS,
          summary: 'A whole message; marks it read',
          params: IdParams,
          response: { 200: { $ref: 'Message' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const { id } = request.params;
        const message = isUuid(id) ? await readMessage(deps.pool, id.toLowerCase()) : undefined;
        if (!message) throw notFound(id);
        return messageView(message);
      },
    );

    app.get(
      '/api/v1/messages/:id/raw',
      {
        schema: {
          tags: TAGS,
          summary: 'The message exactly as received',
          params: IdParams,
          response: {
            200: {
              description: 'the raw bytes',
              content: { 'application/rfc822': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) } },
            },
            ...problemResponses(400, 404),
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const raw = isUuid(id) ? await rawMessage(deps.pool, id.toLowerCase()) : undefined;
        if (!raw) throw notFound(id);
        return reply.type('application/rfc822').header('content-disposition', `attachment; filename="${id.toLowerCase()}.eml"`).send(raw);
      },
    );

    app.get(
      '/api/v1/messages/:id/otp',
      {
        schema: {
          tags: TAGS,
          summary: "The message's one-time code; found is false when it has none",
          params: IdParams,
          response: { 200: { $ref: 'MessageOtp' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const message = await current(request.params.id);
        return { message_id: message.id, otp: message.otp, found: message.otp !== null, subject: message.subject };
      },
    );

    app.get(
      '/api/v1/messages/:id/links',
      {
        schema: {
          tags: TAGS,
          summary: "The message's http(s) links, anchors first, each once",
          params: IdParams,
          response: { 200: { $ref: 'MessageLinks' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const message = await current(request.params.id);
        const links = message.links ?? [];
        return { message_id: message.id, count: links.length, links };
      },
    );

    app.delete(
      '/api/v1/messages/:id',
      {
        schema: {
          tags: TAGS,
          summary: 'Delete a message',
          params: IdParams,
          response: { 204: { description: 'deleted', type: 'null' }, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        if (!(isUuid(id) && (await deleteMessage(deps.pool, id.toLowerCase())))) throw notFound(id);
        return reply.code(204).send(null);
      },
    );
  };
}
