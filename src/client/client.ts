// MailClient: the mail API's inboxes and messages, and waiting for a message, a code or a link in one call.
import { Http, segment, type ClientOptions } from './http.ts';
import type {
  CreateInboxBody,
  Domain,
  GenerateBody,
  Inbox,
  LinkKind,
  Message,
  MessageSummary,
  NewInbox,
  WaitLink,
  WaitMessage,
} from './types.ts';
import { BEGINNING, DEFAULT_POLL_SECONDS, waitLoop, type WaitOptions } from './wait.ts';

export interface MailClientOptions extends ClientOptions {
  /**
   * The longest single wait call, in seconds (25 by default): a longer wait is several calls. Keep it under the idle
   * timeout of any proxy in between; a server whose MAIL_WAIT_MAX_SECONDS is lower makes the client shorten it.
   */
  pollSeconds?: number;
}

export interface CreateInboxOptions {
  /** One of listDomains(); the first public one when omitted. */
  domain?: string;
  /** The part before @; random when omitted. */
  localPart?: string;
  // The rest needs credentials (an account's inbox, POST /api/v1/inboxes).
  label?: CreateInboxBody['label'];
  /** null: the inbox never expires. */
  ttlSeconds?: CreateInboxBody['ttl_seconds'];
  webhookUrl?: CreateInboxBody['webhook_url'];
  /** Readable only with this account's credentials. */
  private?: CreateInboxBody['private'];
}

export interface WaitForLinkOptions extends Omit<WaitOptions, 'linkKind'> {
  /** The kind of link wanted; without it, the first link of kind verify, magic_link, reset or invite. */
  kind?: LinkKind;
}

export type FoundLink = WaitLink & { message: Message };

const ACCOUNT_ONLY = ['label', 'ttlSeconds', 'webhookUrl', 'private'] as const;

export class MailClient {
  /** The cursor meaning "from the beginning": `after: MailClient.BEGINNING` makes a wait consider every message. */
  static readonly BEGINNING = BEGINNING;

  readonly #http: Http;
  readonly #limits: { pollSeconds: number };
  /** Per inbox address: where the next wait without `after` starts (see WaitOptions.after). */
  readonly #cursors = new Map<string, string>();

  constructor(options: MailClientOptions) {
    this.#http = new Http(options);
    const pollSeconds = options.pollSeconds ?? DEFAULT_POLL_SECONDS;
    if (!(Number.isInteger(pollSeconds) && pollSeconds >= 1))
      throw new TypeError('pollSeconds takes a whole number of seconds, at least 1');
    this.#limits = { pollSeconds };
  }

  /**
   * A new inbox: anonymous (POST /api/v1/inboxes/generate) when the client has no credentials, else the account's
   * (POST /api/v1/inboxes, Developer tier). Waits on it start from its beginning, so a message that arrives before
   * the first wait is found.
   */
  async createInbox(options: CreateInboxOptions = {}): Promise<NewInbox> {
    let inbox: NewInbox;
    if (this.#http.hasCredentials) {
      const body: CreateInboxBody = {
        domain: options.domain ?? (await this.#firstPublicDomain()),
        local_part: options.localPart,
        label: options.label,
        ttl_seconds: options.ttlSeconds,
        webhook_url: options.webhookUrl,
        private: options.private,
      };
      inbox = await this.#http.json<NewInbox>('/api/v1/inboxes', { method: 'POST', body });
    } else {
      const needing = ACCOUNT_ONLY.filter((name) => options[name] !== undefined);
      if (needing.length) throw new TypeError(`${needing.join(', ')} need credentials: give the client an apiKey or jwt`);
      const body: GenerateBody = { domain: options.domain, local_part: options.localPart };
      inbox = await this.#http.json<NewInbox>('/api/v1/inboxes/generate', { method: 'POST', body });
    }
    this.#cursors.set(key(inbox.address), BEGINNING);
    return inbox;
  }

  async listDomains(): Promise<Domain[]> {
    return (await this.#http.json<{ domains: Domain[] }>('/api/v1/domains/')).domains;
  }

  async getInbox(address: string): Promise<Inbox> {
    return this.#http.json<Inbox>(`/api/v1/inboxes/${segment(address)}`);
  }

  /** The inbox's messages, newest first (at most `limit`, 1 to 200; 50 by default). */
  async listMessages(address: string, options: { limit?: number } = {}): Promise<MessageSummary[]> {
    return this.#http.json<MessageSummary[]>(`/api/v1/inboxes/${segment(address)}/messages`, { query: { limit: options.limit } });
  }

  async getMessage(id: string): Promise<Message> {
    return this.#http.json<Message>(`/api/v1/messages/${segment(id)}`);
  }

  /** The message as received (RFC 5322 text). */
  async getRawMessage(id: string): Promise<string> {
    return this.#http.text(`/api/v1/messages/${segment(id)}/raw`);
  }

  async deleteMessage(id: string): Promise<void> {
    await this.#http.json(`/api/v1/messages/${segment(id)}`, { method: 'DELETE' });
  }

  async deleteInbox(address: string): Promise<void> {
    await this.#http.json(`/api/v1/inboxes/${segment(address)}`, { method: 'DELETE' });
    this.#cursors.delete(key(address));
  }

  /**
   * The oldest message newer than the cursor that matches the filters, with its code and first actionable link;
   * rejects with WaitTimeoutError when none arrives in time. Later waits on the inbox start after it.
   */
  async waitForMessage(address: string, options: WaitOptions = {}): Promise<WaitMessage> {
    return this.#wait(address, options);
  }

  /** The one-time code of the next message that has one. */
  async waitForCode(address: string, options: Omit<WaitOptions, 'hasOtp'> = {}): Promise<{ code: string; message: Message }> {
    const answer = await this.#wait(address, { ...options, hasOtp: true }, (found) => found.otp !== null);
    return { code: answer.otp!, message: answer.message };
  }

  /** The first link of `kind` (or the first actionable link) of the next message that has one. */
  async waitForLink(address: string, options: WaitForLinkOptions = {}): Promise<FoundLink> {
    const { kind, ...rest } = options;
    const answer = await this.#wait(address, { ...rest, linkKind: kind }, (found) => found.link !== null);
    return { ...answer.link!, message: answer.message };
  }

  async #wait(address: string, options: WaitOptions, accept?: (answer: WaitMessage) => boolean): Promise<WaitMessage> {
    const after = options.after ?? this.#cursors.get(key(address));
    const answer = await waitLoop(this.#http, { address, after, options, limits: this.#limits, accept });
    this.#cursors.set(key(address), answer.message.id);
    return answer;
  }

  async #firstPublicDomain(): Promise<string> {
    const domain = (await this.listDomains()).find((d) => d.is_public);
    if (!domain) throw new TypeError('the server offers no public domain: give createInbox a domain');
    return domain.name;
  }
}

/** Addresses are case-insensitive: one cursor per inbox whatever case the caller writes. */
const key = (address: string): string => address.toLowerCase();
