// Schemas of what an account holds: its inboxes listed a page at a time, and its namespaces. Beside schemas.ts
// (which they build on); the app registers both lists.
import { Type, type Static } from 'typebox';
import { Label, Nullable, OrNull, Timestamp } from './schemas.ts';

/** Inboxes listed when the query names no `limit`. */
export const DEFAULT_INBOX_PAGE = 50;

export const InboxListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_INBOX_PAGE })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
    namespace: Type.Optional(Type.String({ maxLength: 100, description: 'only the inboxes of the namespace of this name' })),
  },
  { additionalProperties: false },
);

export const InboxPageSchema = Type.Object(
  {
    inboxes: Type.Array(Type.Ref('Inbox')),
    next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next page; null on the last one' })),
  },
  { $id: 'InboxPage' },
);

export const NAMESPACE_PATTERN = '^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$';

export const CreateNamespaceBody = Type.Object(
  {
    domain: Type.String({ maxLength: 253, description: 'one of GET /api/v1/domains/; its tier_required ≤ the account tier' }),
    name: Type.String({
      pattern: NAMESPACE_PATTERN,
      description: 'addresses <name>.<anything>@<domain> are accepted; 1 to 32 of [a-z0-9-], not a reserved role name',
    }),
    private: Type.Optional(Type.Boolean({ description: "its inboxes are readable only with the owner's credentials; false when omitted" })),
    ttl_seconds: Type.Optional(
      OrNull(
        Type.Integer({
          minimum: 60,
          maximum: 2_592_000,
          description: 'the life of each inbox made in it; null: persistent; MAIL_ANON_TTL_SECONDS when omitted',
        }),
      ),
    ),
    label: Type.Optional(Label),
    webhook_url: Type.Optional(
      OrNull(Type.String({ maxLength: 2048, description: 'absolute http(s) URL told of each message of its inboxes' })),
    ),
  },
  { additionalProperties: false },
);

export const NamespaceSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    domain: Type.String(),
    address_pattern: Type.String({ description: '<name>.*@<domain>' }),
    private: Type.Boolean(),
    inbox_ttl_seconds: Nullable(Type.Integer({ description: 'the life of each inbox made in it; null: persistent' })),
    label: Nullable(Type.String()),
    webhook_url: Nullable(Type.String()),
    inbox_count: Type.Integer({ description: 'its live inboxes' }),
    created_at: Timestamp,
  },
  { $id: 'Namespace' },
);

export const CreatedNamespaceSchema = Type.Object(
  {
    ...NamespaceSchema.properties,
    webhook_secret: Nullable(
      Type.String({
        pattern: '^[0-9a-f]{48}$',
        description: "signs its inboxes' webhooks; shown only in this response; null without webhook_url",
      }),
    ),
  },
  { $id: 'CreatedNamespace' },
);

export const NamespaceListSchema = Type.Object({ namespaces: Type.Array(Type.Ref('Namespace')) }, { $id: 'NamespaceList' });

export type InboxPageView = Static<typeof InboxPageSchema>;
export type NamespaceView = Static<typeof NamespaceSchema>;
export type CreatedNamespaceView = Static<typeof CreatedNamespaceSchema>;
export type NamespaceListView = Static<typeof NamespaceListSchema>;

export const ACCOUNT_SCHEMAS = [InboxPageSchema, NamespaceSchema, CreatedNamespaceSchema, NamespaceListSchema];
