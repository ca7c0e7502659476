// Domains and inboxes by address: generate, read, stats, list, mark-all-read, clear, delete. An address is
// case-insensitive; an unknown or expired one, or a private one without its owner's credentials, is 404 on
// every route (access.ts).
import { v7 as uuidv7 } from 'uuid';
import { invalid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { lookupName } from '../addresses.ts';
import { clearInbox, deleteInbox, domainFor, inboxByAddress, inboxStats, insertInbox, listDomains, markAllRead } from '../store/index.ts';
import { currentMessageList } from '../stored-extraction.ts';
import type { Access } from './access.ts';
import type { MailAppDeps } from './deps.ts';
import { namedDomain, namespaceFor, placeInbox, requestedLocalPart, unknownDomain } from './placement.ts';
import { AddressParams, DEFAULT_LIST_SIZE, GenerateBody, ListQuery, OPTIONAL_SECURITY } from './schemas.ts';
import { domainView, inboxStatsView, inboxView } from './views.ts';

const TAGS = ['inboxes'];

export function inboxesRoutes(deps: MailAppDeps, access: Access): RoutePlugin {
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
        await namespaceFor(deps.pool, domain.name, localPart, null);
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
          security: OPTIONAL_SECURITY,
          params: AddressParams,
          response: { 200: { $ref: 'Inbox' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const address = lookupName(request.params.address);
        return inboxView(await access.inbox(request, address, (viewer) => inboxByAddress(deps.pool, address, viewer)));
      },
    );

    app.get(
      '/api/v1/inboxes/:address/stats',
      {
        schema: {
          tags: TAGS,
          summary: "An inbox's aggregate counters",
          security: OPTIONAL_SECURITY,
          params: AddressParams,
          response: { 200: { $ref: 'InboxStats' }, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const address = lookupName(request.params.address);
        return inboxStatsView(await access.inbox(request, address, (viewer) => inboxStats(deps.pool, address, viewer)));
      },
    );

    app.get(
      '/api/v1/inboxes/:address/messages',
      {
        schema: {
          tags: TAGS,
          summary: "An inbox's messages, newest first",
          security: OPTIONAL_SECURITY,
          params: AddressParams,
          querystring: ListQuery,
          response: { 200: { $ref: 'MessageList' }, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const address = lookupName(request.params.address);
        const limit = request.query.limit ?? DEFAULT_LIST_SIZE;
        const json = await access.inbox(request, address, (viewer) => currentMessageList(deps.pool, address, limit, viewer));
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
          security: OPTIONAL_SECURITY,
          params: AddressParams,
          response: { 204: { description: 'done', type: 'null' }, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const address = lookupName(request.params.address);
        await access.inbox(request, address, (viewer) => markAllRead(deps.pool, address, viewer));
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/api/v1/inboxes/:address/clear',
      {
        schema: {
          tags: TAGS,
          summary: 'Delete every message of the inbox; the address stays',
          security: OPTIONAL_SECURITY,
          params: AddressParams,
          response: { 204: { description: 'done', type: 'null' }, ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        const address = lookupName(request.params.address);
        await access.inbox(request, address, (viewer) => clearInbox(deps.pool, address, viewer));
        return reply.code(204).send(null);
      },
    );

    app.delete(
      '/api/v1/inboxes/:address',
      {
        schema: {
          tags: TAGS,
          summary: "Delete an inbox with its messages: an anonymous one by anyone, an account's by its owner only",
          security: OPTIONAL_SECURITY,
          params: AddressParams,
          response: { 204: { description: 'deleted', type: 'null' }, ...problemResponses(400, 403, 404, 503) },
        },
      },
      async (request, reply) => {
        const address = lookupName(request.params.address);
        const inbox = await access.liveInbox(request, address);
        // A private inbox reached is its owner's already; an account's other inboxes are read by anyone but
        // deleted by the owner alone.
        if (inbox.accountId !== null && inbox.accountId !== (inbox.viewer ?? (await access.viewer(request)))) {
          throw new Problem('forbidden', `${address} belongs to an account: only its JWT or API key may delete it`);
        }
        await deleteInbox(deps.pool, inbox.id);
        return reply.code(204).send(null);
      },
    );
  };
}
