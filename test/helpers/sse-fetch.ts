// A live inbox read with fetch() rather than EventSource, as a client that must send credentials (a private
// inbox's owner) reads it: the events parsed as they come, until closed.
import { vi } from 'vitest';

export interface StreamEvent {
  event: string;
  id: string | undefined;
  data: Record<string, unknown>;
}

export interface FetchedStream {
  status: number;
  contentType: string | null;
  events: StreamEvent[];
  /** Resolves once `count` events of `type` have come (15 s at most); all of that type so far. */
  until(type: string, count: number): Promise<StreamEvent[]>;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<FetchedStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  const events: StreamEvent[] = [];
  if (res.ok && res.body) {
    const decoder = new TextDecoder();
    let buffered = '';
    void (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffered += decoder.decode(chunk, { stream: true });
          let end = buffered.indexOf('\n\n');
          while (end >= 0) {
            const block = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            const field = (name: string) =>
              block
                .split('\n')
                .find((l) => l.startsWith(`${name}: `))
                ?.slice(name.length + 2);
            const data = field('data');
            if (data !== undefined) events.push({ event: field('event') ?? 'message', id: field('id'), data: JSON.parse(data) });
            end = buffered.indexOf('\n\n');
          }
        }
      } catch {
        // closed
      }
    })();
  } else {
    await res.body?.cancel();
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    events,
    until: (type, count) =>
      vi.waitFor(
        () => {
          const got = events.filter((e) => e.event === type);
          if (got.length < count) throw new Error(`waited for ${count} ${type} events, have ${got.length}`);
          return got;
        },
        { timeout: 15_000, interval: 20 },
      ),
    close: () => abort.abort(),
  };
}
