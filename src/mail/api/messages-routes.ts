// One message: read (marks it read), raw bytes, code, links, delete. A message of an expired inbox is gone
// (404), and so is one of a private inbox without its owner's credentials (access.ts).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { deleteMessage, rawMessage, readMessage, type ExtractionRow } from '../store/index.ts';
import { currentExtraction, withCurrentExtraction } from '../stored-extraction.ts';
import type { Access } from './access.ts';
import type { MailAppDeps } from './deps.ts';
import { IdParams, OPTIONAL_SECURITY } from './schemas.ts';
import { messageLinksView, messageOtpView, messageView } from './views.ts';

const TAGS = ['messages'];

export function messagesRoutes(deps: MailAppDeps, access: Access): RoutePlugin {
  /** The message's code and links, brought up to date with the current detectors. */
  function current(request: FastifyRequest<{ Params: { id: string } }>): Promise<ExtractionRow> {
    return access.message(request, request.params.id, (id, viewer) => currentExtraction(deps.pool, id, viewer));
  }

  return async (app) => {
    app.get(
      '/api/v1/messages/:id',
      {
        schema: {
          tags: TAGS,
          summary: 'A whole message; marks it read',
          security: OPTIONAL_SECURITY,
          params: IdParams,
          response: { 200: { $ref: 'Message' }, ...problemResponses(400, 404) },
        },
      },
      async (request) =>
        messageView(
          await access.message(request, request.params.id, async (id, viewer) => {
            const message = await readMessage(deps.pool, id, viewer);
            return message && withCurrentExtraction(deps.pool, message, viewer);
          }),
        ),
    );

    app.get(
      '/api/v1/messages/:id/raw',
      {
        schema: {
          tags: TAGS,
          summary: 'The message exactly as received',
          security: OPTIONAL_SECURITY,
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
        const raw = await access.message(request, id, (lower, viewer) => rawMessage(deps.pool, lower, viewer));
        return reply.type('application/rfc822').header('content-disposition', `attachment; filename="${id.toLowerCase()}.eml"`).send(raw);
      },
    );

    app.get(
      '/api/v1/messages/:id/otp',
      {
        schema: {
          tags: TAGS,
          summary: "The message's one-time code; found is false when it has none",
          security: OPTIONAL_SECURITY,
          params: IdParams,
          response: { 200: { $ref: 'MessageOtp' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => messageOtpView(await current(request)),
    );

    app.get(
      '/api/v1/messages/:id/links',
      {
        schema: {
          tags: TAGS,
          summary: "The message's http(s) links, anchors first, each once",
          security: OPTIONAL_SECURITY,
          params: IdParams,
          response: { 200: { $ref: 'MessageLinks' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => messageLinksView(await current(request)),
    );

    app.delete(
      '/api/v1/messages/:id',
      {
        schema: {
          tags: TAGS,
          summary: 'Delete a message',
          security: OPTIONAL_SECURITY,
          params: IdParams,
          response: { 204: { description: 'deleted', type: 'null' }, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        await access.message(request, request.params.id, (id, viewer) => deleteMessage(deps.pool, id, viewer));
        return reply.code(204).send(null);
      },
    );
  };
}
