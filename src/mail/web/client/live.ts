// The inbox's event stream, read with fetch() so that a private inbox's key can go in a header (EventSource
// sends none); one reader for every inbox. Like EventSource it reconnects by itself after a dropped connection,
// after the delay the server's `retry` asks for, sending Last-Event-ID so that what came meanwhile is replayed;
// when the server refuses the stream (the 404 of an expired inbox, or of a key that no longer opens it) we tell
// the caller, which asks the API why, and we try again a few seconds later.
import { ApiError, type InboxApi } from './api.ts';
import { EventParser } from './sse.ts';

export type LiveState = 'connecting' | 'live' | 'reconnecting';

export interface NewMessage {
  id: string;
  from: string;
  subject: string;
  has_otp: boolean;
  tag?: string | null;
}

export interface LiveHandlers {
  state(state: LiveState): void;
  /** The stream is (again) open: the list may have changed meanwhile. */
  connected(): void;
  message(event: NewMessage): void;
  /** The server refused the stream. */
  refused(): void;
}

const RETRY_MS = 3000;

export function watchInbox(client: InboxApi, on: LiveHandlers): () => void {
  const abort = new AbortController();
  let retry: ReturnType<typeof setTimeout> | undefined;
  const parser = new EventParser((event) => {
    if (event.type === 'connected') {
      on.state('live');
      on.connected();
    } else if (event.type === 'message') {
      try {
        on.message(JSON.parse(event.data) as NewMessage);
      } catch {
        // not ours: ignore
      }
    }
  });

  const again = (ms: number) => {
    if (!abort.signal.aborted) retry = setTimeout(open, ms);
  };

  async function open() {
    on.state('connecting');
    let body: ReadableStream<Uint8Array> | null;
    try {
      body = (await client.stream(parser.lastEventId, abort.signal)).body;
    } catch (err) {
      if (abort.signal.aborted) return;
      on.state('reconnecting');
      // A network failure is retried as a dropped connection; an answer other than the stream is a refusal.
      if (err instanceof ApiError && err.status !== 0) {
        on.refused();
        again(RETRY_MS);
      } else again(parser.retryMs ?? RETRY_MS);
      return;
    }
    if (body) {
      const reader = body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.push(decoder.decode(value, { stream: true }));
        }
      } catch {
        // the connection dropped (or we closed it)
      }
    }
    parser.reset();
    if (abort.signal.aborted) return;
    on.state('reconnecting');
    again(parser.retryMs ?? RETRY_MS);
  }

  void open();
  return () => {
    abort.abort();
    clearTimeout(retry);
  };
}
