// Requests to the mail API with the web platform's fetch alone (no Node.js module), so the same code runs in
// Node.js 22+, browsers, Deno and Bun.
import { MailApiError } from './errors.ts';

export interface ClientOptions {
  /** The mail API's base address, e.g. http://localhost:8081 (a path prefix such as https://host/mail/ works too). */
  baseUrl: string | URL;
  /** An API key (`tm_…`), sent as X-API-Key. */
  apiKey?: string;
  /** An account's JWT, sent as `Authorization: Bearer`. */
  jwt?: string;
  /** The fetch to use (a test double, a proxy agent's); the global one by default. */
  fetch?: typeof fetch;
}

type Query = Record<string, string | number | boolean | undefined>;

export interface CallInit {
  method?: 'GET' | 'POST' | 'DELETE';
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
}

export class Http {
  readonly #base: URL;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    if (options.apiKey !== undefined && options.jwt !== undefined) {
      // The server refuses a request that carries both (401): say so before any request.
      throw new TypeError('give apiKey or jwt, not both');
    }
    const base = new URL(String(options.baseUrl));
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.#base = base;
    this.#headers = { accept: 'application/json' };
    if (options.apiKey !== undefined) this.#headers['x-api-key'] = options.apiKey;
    if (options.jwt !== undefined) this.#headers.authorization = `Bearer ${options.jwt}`;
    // Called through a closure: a browser's fetch throws "Illegal invocation" when called as another object's method.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  get hasCredentials(): boolean {
    return 'x-api-key' in this.#headers || 'authorization' in this.#headers;
  }

  /** The answer's JSON; undefined for 204. An error answer rejects with MailApiError. */
  async json<T>(path: string, init: CallInit = {}): Promise<T> {
    const response = await this.#send(path, init);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  async text(path: string, init: CallInit = {}): Promise<string> {
    return (await this.#send(path, init)).text();
  }

  async #send(path: string, init: CallInit): Promise<Response> {
    const url = new URL(path.replace(/^\//, ''), this.#base);
    for (const [name, value] of Object.entries(init.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers = { ...this.#headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.#fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
    if (!response.ok) throw await MailApiError.from(response);
    return response;
  }
}

/** A path segment: an address or id as one segment, whatever it holds. */
export const segment = (value: string): string => encodeURIComponent(value);
