// The tools of `domainkit mcp`. Each answers with a JSON object, as text (what every host shows the model) and
// as structuredContent; a failure is a tool error whose text says what to do next.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { LINK_KINDS, MailApiError, type MailClient, type Message, type WaitOptions, WaitTimeoutError } from '../client/index.ts';

/** Hosts commonly cut a tool call at 60 s; a longer wait is several calls, each resuming where the last ended. */
const MAX_WAIT_SECONDS = 120;
/** The part of a message body an answer carries: enough to read a mail, not a whole newsletter's HTML. */
const MAX_BODY_CHARS = 20_000;

const address = z.string().min(3).describe('the inbox address, e.g. k3j9x0q2ab@inbox.localhost');
const waitFields = {
  address,
  timeout_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).optional().describe('how long to wait, in seconds (30 by default)'),
  after: z
    .uuid()
    .optional()
    .describe(
      'only messages newer than this message id (a cursor of an earlier answer); 00000000-0000-0000-0000-000000000000: any. ' +
        'Omitted: after the last message a wait returned from this inbox (from its beginning for an inbox made here)',
    ),
  from: z.string().min(1).optional().describe("a part of the sender's address (any case)"),
  subject: z.string().min(1).optional().describe('a part of the subject (any case)'),
  tag: z.string().min(1).optional().describe('the tag of a name+tag@domain address'),
};

export function registerTools(server: McpServer, client: MailClient, url: string): void {
  const run = (work: () => Promise<object>) => answer(work, url);

  server.registerTool(
    'create_inbox',
    {
      title: 'Create an inbox',
      description:
        'Makes a new disposable inbox and returns its address. Mail sent to it can then be waited for. ' +
        'label, ttl_seconds and private need the server to have been started with an API key.',
      inputSchema: {
        domain: z.string().optional().describe('a domain of the server; the first public one when omitted'),
        local_part: z.string().optional().describe('the part before @; random when omitted'),
        label: z.string().max(200).optional(),
        ttl_seconds: z.number().int().min(60).optional().describe('life of the inbox in seconds'),
        private: z.boolean().optional().describe('readable only with this API key'),
      },
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    (input) =>
      run(async () => {
        const inbox = await client.createInbox({
          domain: input.domain,
          localPart: input.local_part,
          label: input.label,
          ttlSeconds: input.ttl_seconds,
          private: input.private,
        });
        return { address: inbox.address, expires_at: inbox.inbox_expires_at, inbox };
      }),
  );

  server.registerTool(
    'wait_for_message',
    {
      title: 'Wait for a message',
      description:
        'Waits until a message matching the filters arrives in the inbox and returns it, with its one-time code and ' +
        'its main link if any. Returns an error saying so when none arrives in time.',
      inputSchema: {
        ...waitFields,
        has_otp: z.boolean().optional().describe('only messages with (true) or without (false) a one-time code'),
        link_kind: z.enum(LINK_KINDS).optional().describe('only messages with a link of this kind'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      run(async () => {
        const found = await client.waitForMessage(input.address, {
          ...waitOptions(input),
          hasOtp: input.has_otp,
          linkKind: input.link_kind,
        });
        return { cursor: found.cursor, otp: found.otp, link: found.link, message: forAgent(found.message) };
      }),
  );

  server.registerTool(
    'wait_for_code',
    {
      title: 'Wait for a one-time code',
      description:
        'Waits for the next message in the inbox that carries a one-time code (a verification or sign-in code) and returns the code.',
      inputSchema: waitFields,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      run(async () => {
        const { code, message } = await client.waitForCode(input.address, waitOptions(input));
        return { code, ...headline(message) };
      }),
  );

  server.registerTool(
    'wait_for_link',
    {
      title: 'Wait for a link',
      description:
        'Waits for the next message in the inbox with a link of the kind asked for (verify: confirm an address; ' +
        'magic_link: sign in; reset: password; unsubscribe; invite) and returns the link. Without a kind: the first ' +
        'verify, magic_link, reset or invite link.',
      inputSchema: { ...waitFields, kind: z.enum(LINK_KINDS).optional().describe('the kind of link wanted') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      run(async () => {
        const { message, ...link } = await client.waitForLink(input.address, { ...waitOptions(input), kind: input.kind });
        return { url: link.url, text: link.text ?? null, kind: link.kind ?? null, ...headline(message) };
      }),
  );

  server.registerTool(
    'read_message',
    {
      title: 'Read a message',
      description: 'Returns a message by id: sender, subject, text, one-time code, links and attachments.',
      inputSchema: { id: z.uuid().describe('the message id (message_id of another answer)') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => run(async () => forAgent(await client.getMessage(input.id))),
  );

  server.registerTool(
    'list_messages',
    {
      title: 'List messages',
      description: "Lists an inbox's messages, newest first (id, sender, subject, time, whether it has a code).",
      inputSchema: { address, limit: z.number().int().min(1).max(200).optional().describe('at most this many (50 by default)') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      run(async () => {
        const messages = await client.listMessages(input.address, { limit: input.limit });
        return {
          messages: messages.map(({ id, from_address, subject, received_at, has_otp, tag }) => ({
            id,
            from_address,
            subject,
            received_at,
            has_otp,
            tag,
          })),
        };
      }),
  );
}

function waitOptions(input: { timeout_seconds?: number; after?: string; from?: string; subject?: string; tag?: string }): WaitOptions {
  return {
    timeout: (input.timeout_seconds ?? 30) * 1000,
    after: input.after,
    from: input.from,
    subject: input.subject,
    tag: input.tag,
  };
}

function headline(message: Message) {
  return { message_id: message.id, from: message.from_address, subject: message.subject, received_at: message.received_at };
}

/** A message as a model reads it: the headline, the code, the links and the text (HTML only when there is no text). */
function forAgent(message: Message) {
  const body = message.body_text ?? message.body_html ?? '';
  return {
    ...headline(message),
    to: message.to_address,
    tag: message.tag,
    otp: message.otp_detected,
    links: message.links.map(({ url, text, kind }) => ({ url, text, kind })),
    attachments: message.attachments,
    body_format: message.body_text !== null ? 'text' : message.body_html !== null ? 'html' : null,
    body: body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS)}… (cut at ${MAX_BODY_CHARS} characters)` : body,
  };
}

async function answer(work: () => Promise<object>, url: string): Promise<CallToolResult> {
  try {
    const result = await work();
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result as Record<string, unknown> };
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: failure(err, url) }] };
  }
}

function failure(err: unknown, url: string): string {
  if (err instanceof WaitTimeoutError) {
    const resume = err.cursor ? ` Call again with after=${err.cursor} to keep waiting without missing anything.` : '';
    return `No matching message arrived in ${err.address} within ${err.timeout / 1000} s.${resume}`;
  }
  if (err instanceof MailApiError) return `The mail API answered ${err.status} ${err.code}: ${err.detail}`;
  return `Could not reach the mail API at ${url}: ${err instanceof Error ? err.message : String(err)}`;
}
