// One message: read (marks it read), raw bytes, delete. A message of an expired inbox is gone (404).
import { Type } from 'typebox';
import { isUuid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { deleteMessage, rawMessage, readMessage, type ExtractionRow } from '../store/index.ts';
import { currentExtraction } from '../stored-extraction.ts';
import type { MailAppDeps } from './deps.ts';
import { IdParams } from './schemas.ts';
import { messageLinksView, messageOtpView, messageView } from './views.ts';

const TAGS = ['messages'];

export function messagesRoutes(deps: MailAppDeps): RoutePlugin {
  const notFound = (id: string) => new Problem('not_found', `no message ${id}`);

  /** The message's code and links, brought up to date with the current detectors. */
  async function current(id: string): Promise<ExtractionRow> {
    const message = isUuid(id) ? await currentExtraction(deps.pool, id.toLowerCase()) : undefined;
    if (!message) throw notFound(id);
    return message;
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
      async (request) => messageOtpView(await current(request.params.id)),
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
      async (request) => messageLinksView(await current(request.params.id)),
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
