// The inbox's event stream. EventSource reconnects by itself after a dropped connection (sending
// Last-Event-ID, so nothing is missed); when it gives up (a refusal, such as the 404 of an expired inbox) we
// tell the caller, which asks the API why, and we try again a few seconds later.
import { api } from './api.ts';

export type LiveState = 'connecting' | 'live' | 'reconnecting';

export interface NewMessage {
  id: string;
  from: string;
  subject: string;
  has_otp: boolean;
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

export function watchInbox(address: string, on: LiveHandlers): () => void {
  let source: EventSource | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const open = () => {
    on.state('connecting');
    source = new EventSource(api.streamUrl(address));
    source.addEventListener('connected', () => {
      on.state('live');
      on.connected();
    });
    source.addEventListener('message', (event) => {
      try {
        on.message(JSON.parse((event as MessageEvent<string>).data) as NewMessage);
      } catch {
        // not ours: ignore
      }
    });
    source.onerror = () => {
      if (stopped) return;
      on.state('reconnecting');
      if (source?.readyState === EventSource.CLOSED) {
        on.refused();
        retry = setTimeout(open, RETRY_MS);
      }
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    source?.close();
  };
}
