// The public mail API (/api/v1), and nothing else: the page is one more client of it.
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
}
export interface Message extends Summary {
  body_text: string | null;
  body_html: string | null;
  attachments: { filename: string | null; size: number; content_type?: string }[];
}
export interface Otp {
  otp: string | null;
  found: boolean;
}
export interface Links {
  links: { index: number; url: string }[];
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

async function call<T>(path: string, method = 'GET', body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(BASE + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The server cannot be reached.');
  }
  if (!res.ok) {
    const problem = (await res.json().catch(() => ({}))) as { detail?: string };
    throw new ApiError(res.status, problem.detail ?? `The server answered ${res.status}.`);
  }
  return (res.status === 204 ? undefined : await res.json()) as T;
}

export const api = {
  domains: () => call<{ domains: Domain[] }>('/domains/').then((r) => r.domains),
  generate: (domain?: string, localPart?: string) =>
    call<Inbox>('/inboxes/generate', 'POST', { ...(domain ? { domain } : {}), ...(localPart ? { local_part: localPart } : {}) }),
  inbox: (address: string) => call<Inbox>(`/inboxes/${enc(address)}`),
  messages: (address: string) => call<Summary[]>(`/inboxes/${enc(address)}/messages?limit=200`),
  message: (id: string) => call<Message>(`/messages/${enc(id)}`),
  otp: (id: string) => call<Otp>(`/messages/${enc(id)}/otp`),
  links: (id: string) => call<Links>(`/messages/${enc(id)}/links`).then((r) => r.links),
  remove: (id: string) => call<void>(`/messages/${enc(id)}`, 'DELETE'),
  markAllRead: (address: string) => call<void>(`/inboxes/${enc(address)}/mark-all-read`, 'POST'),
  clear: (address: string) => call<void>(`/inboxes/${enc(address)}/clear`, 'POST'),
  rawUrl: (id: string) => `${BASE}/messages/${enc(id)}/raw`,
  streamUrl: (address: string) => `${BASE}/sse/inbox/${enc(address)}`,
};
