// Domains and anonymous inboxes: generate, read, stats, list, mark-all-read, clear. An address is
// case-insensitive; an unknown or expired one is 404 on every route.
import { v7 as uuidv7 } from 'uuid';
import { invalid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { lookupName } from '../addresses.ts';
import {
  clearInbox,
  domainFor,
  inboxByAddress,
  inboxStats,
  insertInbox,
  listDomains,
  listMessagesJson,
  markAllRead,
} from '../store/index.ts';
import type { MailAppDeps } from './deps.ts';
import { namedDomain, placeInbox, requestedLocalPart, unknownDomain } from './placement.ts';
import { AddressParams, DEFAULT_LIST_SIZE, GenerateBody, ListQuery } from './schemas.ts';
import { domainView, inboxStatsView, inboxView } from './views.ts';

const TAGS = ['inboxes'];

export function inboxesRoutes(deps: MailAppDeps): RoutePlugin {
  const notFound = (address: string) => new Problem('not_found', `no inbox ${address} (unknown, or expired)`);

  return async (app) => {
    app.get(
      '/api/v1/domains/',
      { schema: { tags: ['domains'], summary: 'The domains inboxes can be made on', response: { 200: { $ref: 'DomainList' } } } },
      async () => ({ domains: (await listDomains(deps.pool)).map(domainView) }),
    );

    app.post(
      '/api/v1/inboxes/generate',
      {
        schema: {
          tags: TAGS,
          summary: 'Make an anonymous inbox (random or chosen local part)',
          body: GenerateBody,
          response: { 201: { $ref: 'Inbox' }, ...problemResponses(400, 403, 409, 413, 415) },
        },
        // No body at all is the empty object.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const { domain: name, local_part: requested } = request.body;
        const domain = name === undefined ? await domainFor(deps.pool, undefined) : await namedDomain(deps.pool, name);
        if (!domain) {
          if (name === undefined) throw new Problem('conflict', 'no public domain is configured (MAIL_DOMAINS)');
          throw invalid([unknownDomain(name)]);
        }
        if (!domain.isPublic || domain.tierRequired > 0) {
          throw new Problem('tier_required', `${domain.name} needs an account of tier ${Math.max(domain.tierRequired, 1)} or higher`);
        }
        const { localPart, issue } = requestedLocalPart(requested);
        if (issue) throw invalid([issue]);
        const inbox = await placeInbox(domain.name, localPart, (address) =>
          insertInbox(deps.pool, { id: uuidv7(), address, domain: domain.name, ttlSeconds: deps.anonTtlSeconds }),
        );
        void reply.code(201).header('location', `/api/v1/inboxes/${encodeURIComponent(inbox.address)}`);
        return inboxView(inbox);
      },
    );

    app.get(
      '/api/v1/inboxes/:address',
      {
        schema: {
          tags: TAGS,
          summary: 'An inbox with its counters',
          params: AddressParams,
          response: { 200: { $ref: 'Inbox' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const address = lookupName(request.params.address);
        const inbox = await inboxByAddress(deps.pool, address);
        if (!inbox) throw notFound(address);
        return inboxView(inbox);
      },
    );

    app.get(
      '/api/v1/inboxes/:address/stats',
      {
        schema: {
          tags: TAGS,
          summary: "An inbox's aggregate counters",
          params: AddressParams,
          response: { 200: { $ref: 'InboxStats' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const address = lookupName(request.params.address);
        const stats = await inboxStats(deps.pool, address);
        if (!stats) throw notFound(address);
        return inboxStatsView(stats);
      },
    );

    app.get(
      '/api/v1/inboxes/:address/messages',
      {
        schema: {
          tags: TAGS,
          summary: "An inbox's messages, newest first",
          params: AddressParams,
          querystring: ListQuery,
          response: { 200: { $ref: 'MessageList' }, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const address = lookupName(request.params.address);
        const json = await listMessagesJson(deps.pool, address, request.query.limit ?? DEFAULT_LIST_SIZE);
        if (json === undefined) throw notFound(address);
        // Already the response body (the MessageList schema documents it).
        return reply.type('application/json; charset=utf-8').send(json);
      },
    );

    app.post(
      '/api/v1/inboxes/:address/mark-all-read',
      {
        schema: {
          tags: TAGS,
          summary: 'Mark every message of the inbox read',
          params: AddressParams,
          response: { 204: { description: 'done', type: 'null' }, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const address = lookupName(request.params.address);
        if (!(await markAllRead(deps.pool, address))) throw notFound(address);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/api/v1/inboxes/:address/clear',
      {
        schema: {
          tags: TAGS,
          summary: 'Delete every message of the inbox; the address stays',
          params: AddressParams,
          response: { 204: { description: 'done', type: 'null' }, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const address = lookupName(request.params.address);
        if (!(await clearInbox(deps.pool, address))) throw notFound(address);
        return reply.code(204).send(null);
      },
    );
  };
}
