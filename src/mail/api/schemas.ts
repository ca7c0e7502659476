// The mail API's request and response schemas: they validate requests and make the OpenAPI document.
import { Type, type Static, type TSchema } from 'typebox';
import { LINK_KINDS } from '../extract/index.ts';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });

export const DomainSchema = Type.Object(
  {
    name: Type.String(),
    is_public: Type.Boolean(),
    tier_required: Type.Integer({ description: '0: anyone; 3: Developer' }),
  },
  { $id: 'Domain' },
);
export const DomainListSchema = Type.Object({ domains: Type.Array(Type.Ref('Domain')) }, { $id: 'DomainList' });

export const GenerateBody = Type.Object(
  {
    domain: Type.Optional(Type.String({ maxLength: 253, description: 'one of GET /api/v1/domains/; the first public one when omitted' })),
    local_part: Type.Optional(
      Type.String({ maxLength: 320, description: 'lower-cased dot-atom of 1 to 64 characters; random (10 of [a-z0-9]) when omitted' }),
    ),
  },
  { additionalProperties: false },
);

export const InboxSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    address: Type.String(),
    domain: Type.String(),
    message_count: Type.Integer(),
    unread_count: Type.Integer(),
    inbox_expires_at: Nullable(Type.String({ format: 'date-time', description: 'null: persistent' })),
    created_at: Timestamp,
    label: Nullable(Type.String()),
    webhook_url: Nullable(Type.String()),
    private: Type.Boolean({ description: "readable only with its owner's JWT or API key" }),
    namespace: Nullable(Type.String({ description: 'the name of the namespace it was made in' })),
  },
  { $id: 'Inbox' },
);

export const InboxStatsSchema = Type.Object(
  {
    address: Type.String(),
    message_count: Type.Integer(),
    unread_count: Type.Integer(),
    otp_count: Type.Integer({ description: 'messages with a one-time code' }),
    total_bytes: Type.Integer({ description: 'raw sizes summed' }),
    attachment_count: Type.Integer(),
    last_received_at: Nullable(Timestamp),
  },
  { $id: 'InboxStats' },
);

const summaryProperties = {
  id: Type.String({ format: 'uuid' }),
  from_address: Type.String({ description: "the From header's address ('' when it has none)" }),
  subject: Type.String(),
  received_at: Timestamp,
  is_read: Type.Boolean(),
  has_otp: Type.Boolean(),
  raw_size: Type.Integer({ description: 'bytes as received' }),
  link_count: Type.Integer(),
  attachment_count: Type.Integer(),
  tag: Nullable(Type.String({ description: 'what followed + in the address it was sent to (name+tag@domain), lower-cased' })),
};

export const MessageSummarySchema = Type.Object(summaryProperties, { $id: 'MessageSummary' });

export const LinkSchema = Type.Object(
  {
    index: Type.Integer({ description: 'its place among the links, from 0' }),
    url: Type.String({ description: 'an http(s) URL as the mail has it, in WHATWG form' }),
    text: Nullable(
      Type.String({
        maxLength: 200,
        description:
          "the anchor's text, whitespace collapsed (an image-only anchor's alt text); null for a URL of the text part or List-Unsubscribe",
      }),
    ),
    kind: Type.Enum([...LINK_KINDS], {
      description: 'what it is for: confirm an address, sign in, set a password anew, leave a list, join someone, or other',
    }),
  },
  { $id: 'Link' },
);
/** A link in another schema: `$ref: Link` in the document, typed as the Link schema. */
export const LinkRef = Type.Unsafe<Static<typeof LinkSchema>>(Type.Ref('Link'));
export const MessageListSchema = Type.Array(Type.Ref('MessageSummary'), { $id: 'MessageList' });

export const MessageSchema = Type.Object(
  {
    ...summaryProperties,
    to_address: Type.String({ description: 'the address this copy was delivered to, lower-cased (with its +tag, if any)' }),
    body_text: Nullable(Type.String()),
    body_html: Nullable(Type.String()),
    links: Type.Array(LinkRef, { description: "the HTML's anchors, then URLs of the text part, then List-Unsubscribe; each URL once" }),
    attachments: Type.Array(Type.Object({ filename: Nullable(Type.String()), size: Type.Integer(), content_type: Type.String() })),
    otp_detected: Nullable(Type.String()),
    headers: Type.Record(Type.String(), Type.String(), { description: 'lower-cased names; repeated headers joined with \\n' }),
  },
  { $id: 'Message' },
);

export const MessageOtpSchema = Type.Object(
  {
    message_id: Type.String({ format: 'uuid' }),
    otp: Nullable(Type.String({ description: 'digits without separators, or a letter-and-digit code as shown' })),
    found: Type.Boolean(),
    subject: Type.String(),
  },
  { $id: 'MessageOtp' },
);

export const MessageLinksSchema = Type.Object(
  {
    message_id: Type.String({ format: 'uuid' }),
    count: Type.Integer(),
    links: Type.Array(LinkRef),
  },
  { $id: 'MessageLinks' },
);

export const AddressParams = Type.Object({ address: Type.String({ maxLength: 400 }) });
export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
/** Messages listed when the query names no `limit`. */
export const DEFAULT_LIST_SIZE = 50;
// `limit` is optional so that the document does not call it required; the validator fills in the default.
export const ListQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_LIST_SIZE })) },
  { additionalProperties: false },
);

// -------------------------------------------------------------------------------- Developer tier: keys, inboxes

/** Either credential, for each authenticated route's OpenAPI `security`. */
export const SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];
/** The routes by address or id: anonymous, or the owner's credentials for a private inbox. */
export const OPTIONAL_SECURITY: Record<string, string[]>[] = [{}, ...SECURITY];

/**
 * A value or null as one JSON Schema type list: a wrong value then gets one error, where a union would report
 * one per branch ("must be >= 60", "must be null", "must match a schema in anyOf").
 */
export const OrNull = <T extends TSchema & { type: string }>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
export const Label = OrNull(Type.String({ maxLength: 200 }));

export const CreateApiKeyBody = Type.Object(
  {
    label: Type.Optional(Label),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 90 })),
  },
  { additionalProperties: false },
);

const apiKeyProperties = {
  id: Type.String({ format: 'uuid' }),
  key_prefix: Type.String({ pattern: '^[a-z0-9]{8}$', description: 'the public part of the key: tm_<key_prefix>_…' }),
  label: Nullable(Type.String()),
  expires_at: Timestamp,
};

export const CreatedApiKeySchema = Type.Object(
  { ...apiKeyProperties, plaintext: Type.String({ description: 'tm_<key_prefix>_<48 hex>; shown only in this response' }) },
  { $id: 'CreatedApiKey' },
);

export const ApiKeySchema = Type.Object(
  {
    ...apiKeyProperties,
    is_active: Type.Boolean({ description: 'false once revoked or expired' }),
    last_used_at: Nullable(Type.String({ format: 'date-time', description: 'recorded at most once a minute' })),
    created_at: Timestamp,
  },
  { $id: 'ApiKey' },
);
export const ApiKeyListSchema = Type.Array(Type.Ref('ApiKey'), { $id: 'ApiKeyList' });

export const CreateInboxBody = Type.Object(
  {
    domain: Type.String({
      maxLength: 253,
      description: 'one of GET /api/v1/domains/, private ones included; its tier_required ≤ the account tier',
    }),
    local_part: Type.Optional(Type.String({ maxLength: 320, description: 'as for generate; random when omitted' })),
    label: Type.Optional(Label),
    ttl_seconds: Type.Optional(
      OrNull(Type.Integer({ minimum: 60, maximum: 2_592_000, description: 'null: persistent; MAIL_ANON_TTL_SECONDS when omitted' })),
    ),
    webhook_url: Type.Optional(OrNull(Type.String({ maxLength: 2048, description: 'absolute http(s) URL told of each message' }))),
    private: Type.Optional(
      Type.Boolean({ description: "readable only with the owner's credentials; false when omitted (in a namespace: the namespace's)" }),
    ),
  },
  { additionalProperties: false },
);

export const CreatedInboxSchema = Type.Object(
  {
    ...InboxSchema.properties,
    webhook_secret: Nullable(
      Type.String({ pattern: '^[0-9a-f]{48}$', description: 'signs the webhooks; shown only in this response; null without webhook_url' }),
    ),
  },
  { $id: 'CreatedInbox' },
);

// What the routes answer: the types of the response schemas, so a view that drifts from its schema fails to compile.
export type DomainView = Static<typeof DomainSchema>;
export type InboxView = Static<typeof InboxSchema>;
export type InboxStatsView = Static<typeof InboxStatsSchema>;
export type MessageSummaryView = Static<typeof MessageSummarySchema>;
export type MessageView = Static<typeof MessageSchema>;
export type MessageOtpView = Static<typeof MessageOtpSchema>;
export type MessageLinksView = Static<typeof MessageLinksSchema>;
export type LinkView = Static<typeof LinkSchema>;
export type CreatedApiKeyView = Static<typeof CreatedApiKeySchema>;
export type ApiKeyView = Static<typeof ApiKeySchema>;
export type CreatedInboxView = Static<typeof CreatedInboxSchema>;

export const MAIL_SCHEMAS = [
  DomainSchema,
  DomainListSchema,
  InboxSchema,
  InboxStatsSchema,
  MessageSummarySchema,
  MessageListSchema,
  LinkSchema,
  MessageSchema,
  MessageOtpSchema,
  MessageLinksSchema,
  CreatedApiKeySchema,
  ApiKeySchema,
  ApiKeyListSchema,
  CreatedInboxSchema,
];
