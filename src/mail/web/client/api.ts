// The public mail API (/api/v1), and nothing else: the page is one more client of it. Calls about one inbox
// and its messages go through `inboxApi`, bound to that inbox's address and, for a private inbox, to the API
// key it was opened with: the key goes in the X-API-Key header of every such call, never in a URL.
export interface Inbox {
  address: string;
  inbox_expires_at: string | null;
  message_count: number;
  unread_count: number;
}
export interface Domain {
  name: string;
  is_public: boolean;
  tier_required: number;
}
export interface Summary {
  id: string;
  from_address: string;
  subject: string;
  received_at: string;
  is_read: boolean;
  has_otp: boolean;
  raw_size: number;
  link_count: number;
  attachment_count: number;
  tag: string | null;
}
export type LinkKind = 'verify' | 'magic_link' | 'reset' | 'unsubscribe' | 'invite' | 'other';
export interface Link {
  index: number;
  url: string;
  text: string | null;
  kind: LinkKind;
}
export interface Message extends Summary {
  to_address: string;
  body_text: string | null;
  body_html: string | null;
  links: Link[];
  attachments: { filename: string | null; size: number; content_type?: string }[];
}
export interface Otp {
  otp: string | null;
  found: boolean;
}

/** A refusal of the API (its problem `detail`), or `status` 0 when the server could not be reached. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const BASE = '/api/v1';
const enc = encodeURIComponent;

async function send(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }) {
  let res: Response;
  try {
    res = await fetch(BASE + path, {
      method: init.method ?? 'GET',
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (err) {
    if (init.signal?.aborted) throw err;
    throw new ApiError(0, 'The server cannot be reached.');
  }
  if (!res.ok) {
    const problem = (await res.json().catch(() => ({}))) as { detail?: string };
    throw new ApiError(res.status, problem.detail ?? `The server answered ${res.status}.`);
  }
  return res;
}

async function call<T>(path: string, method = 'GET', body?: unknown, headers?: Record<string, string>): Promise<T> {
  const res = await send(path, { method, body, headers });
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** Calls about no inbox in particular: never with a key. */
export const api = {
  domains: () => call<{ domains: Domain[] }>('/domains/').then((r) => r.domains),
  generate: (domain?: string, localPart?: string) =>
    call<Inbox>('/inboxes/generate', 'POST', { ...(domain ? { domain } : {}), ...(localPart ? { local_part: localPart } : {}) }),
};

export type InboxApi = ReturnType<typeof inboxApi>;

/** The calls of one inbox's page, each with the key it was opened with (null: anonymous). */
export function inboxApi(address: string, key: string | null) {
  const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
  const get = <T>(path: string, method = 'GET') => call<T>(path, method, undefined, headers);
  const inbox = `/inboxes/${enc(address)}`;
  return {
    address,
    /** Opened with a key: what navigates to the API (a download link) cannot carry it, so it is fetched. */
    keyed: key !== null,
    inbox: () => get<Inbox>(inbox),
    messages: () => get<Summary[]>(`${inbox}/messages?limit=200`),
    markAllRead: () => get<void>(`${inbox}/mark-all-read`, 'POST'),
    clear: () => get<void>(`${inbox}/clear`, 'POST'),
    message: (id: string) => get<Message>(`/messages/${enc(id)}`),
    otp: (id: string) => get<Otp>(`/messages/${enc(id)}/otp`),
    remove: (id: string) => get<void>(`/messages/${enc(id)}`, 'DELETE'),
    /** The raw message's URL, for a plain download link (anonymous inboxes). */
    rawUrl: (id: string) => `${BASE}/messages/${enc(id)}/raw`,
    /** The raw message fetched with the key, for a blob download (private inboxes). */
    raw: async (id: string) => (await send(`/messages/${enc(id)}/raw`, { headers })).blob(),
    /** The live stream's response (its body is read as it comes), resuming after `lastEventId` if given. */
    stream: (lastEventId: string | undefined, signal: AbortSignal) =>
      send(`/sse/inbox/${enc(address)}`, {
        headers: { accept: 'text/event-stream', ...headers, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal,
      }),
  };
}
