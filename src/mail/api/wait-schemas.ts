// The schemas of GET /api/v1/inboxes/{address}/wait: its query (whose `timeout` is bounded by a setting) and its
// answers, a message or a timeout told apart by `status`.
import { Type, type Static } from 'typebox';
import { LINK_KINDS } from '../extract/index.ts';
import { LinkRef } from './schemas.ts';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** `timeout` when the query names none (or MAIL_WAIT_MAX_SECONDS, if lower). */
export const DEFAULT_WAIT_SECONDS = 30;

/** The query of GET /api/v1/inboxes/{address}/wait; its `timeout` is bounded by MAIL_WAIT_MAX_SECONDS. */
export function waitQuery(maxSeconds: number) {
  return Type.Object(
    {
      after: Type.Optional(
        Type.String({
          pattern: UUID_PATTERN,
          description:
            'a message id: answer with a message stored after it; 00000000-0000-0000-0000-000000000000: any message of the inbox. ' +
            'Omitted: only messages newer than the newest one the inbox has when the call starts',
        }),
      ),
      timeout: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: maxSeconds,
          default: Math.min(DEFAULT_WAIT_SECONDS, maxSeconds),
          description: `seconds to wait for a match, 0 to ${maxSeconds} (MAIL_WAIT_MAX_SECONDS); 0: look once and answer`,
        }),
      ),
      from: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: "a part of the sender's address (any case)" })),
      subject: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'a part of the subject (any case)' })),
      tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the tag (`name+tag@domain`), exactly' })),
      has_otp: Type.Optional(Type.Boolean({ description: 'true: only messages with a one-time code; false: only those without' })),
      link_kind: Type.Optional(Type.String({ enum: [...LINK_KINDS], description: 'only messages with a link of this kind' })),
    },
    { additionalProperties: false },
  );
}
export type WaitQuery = Static<ReturnType<typeof waitQuery>>;

export const WaitMessageSchema = Type.Object(
  {
    status: Type.Literal('message'),
    cursor: Type.String({ format: 'uuid', description: "the message's id: pass it as `after` to wait for the next one" }),
    message: Type.Ref('Message'),
    otp: Type.Union([Type.String(), Type.Null()], { description: "the message's one-time code (its otp_detected)" }),
    link: Type.Union([LinkRef, Type.Null()], {
      description: 'the first link of `link_kind` when asked; else the first of kind verify, magic_link, reset or invite; else null',
    }),
  },
  { $id: 'WaitMessage' },
);

export const WaitTimeoutSchema = Type.Object(
  {
    status: Type.Literal('timeout'),
    cursor: Type.String({
      format: 'uuid',
      description: 'the newest message looked at (none matched), else where the wait started: call again with after=cursor',
    }),
  },
  { $id: 'WaitTimeout' },
);

export const WaitResultSchema = Type.Union([Type.Ref('WaitMessage'), Type.Ref('WaitTimeout')], { $id: 'WaitResult' });

export type WaitTimeoutView = Static<typeof WaitTimeoutSchema>;

export const WAIT_SCHEMAS = [WaitMessageSchema, WaitTimeoutSchema, WaitResultSchema];
