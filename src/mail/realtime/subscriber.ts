// One SSE client of an inbox. Writes never wait and nothing piles up in memory for a client that reads slowly:
// while its socket is full, the events it misses are only noted (where it fell behind), and once the socket
// drains they are read again from the database, a page at a time, in order. Replaying after Last-Event-ID is
// the same catch-up. A client that has not read anything for a minute is let go (it may reconnect and resume).
import type { ServerResponse } from 'node:http';
import { isUuid } from '../../platform/http/index.ts';
import type { LiveInbox, MessageEvent } from '../store/index.ts';

export type Stream = Pick<ServerResponse, 'write' | 'end' | 'once' | 'on'>;

/** Where to read on from: after a message id, or from one (inclusive). */
export interface Cursor {
  id: string;
  inclusive: boolean;
}

/** Where a reconnecting client resumes: after the message its Last-Event-ID names, if it names one (a UUID). */
export function resumeAfter(lastEventId: string | string[] | undefined): Cursor | undefined {
  const id = typeof lastEventId === 'string' ? lastEventId.trim() : '';
  return isUuid(id) ? { id: id.toLowerCase(), inclusive: false } : undefined;
}

/** Reads up to `limit` messages of the inbox from the cursor, oldest first. */
export type ReadEvents = (inboxId: string, from: Cursor, limit: number) => Promise<MessageEvent[]>;

const PAGE = 200;
/** A client whose socket stays full this long is let go. */
const STALL_MS = 60_000;
/** Ids remembered so that each message goes out once, whichever way it came (notification, replay, catch-up). */
const REMEMBERED_IDS = 1024;

export class Subscriber {
  readonly inbox: LiveInbox;
  private readonly stream: Stream;
  private readonly read: ReadEvents;
  private readonly onFinish: () => void;
  private blockedSince: number | undefined;
  private catching = false;
  private resumeFrom: Cursor | undefined;
  private readonly sent = new Set<string>();
  private ended = false;
  private finished = false;

  constructor(inbox: LiveInbox, stream: Stream, read: ReadEvents, onFinish: () => void) {
    this.inbox = inbox;
    this.stream = stream;
    this.read = read;
    this.onFinish = onFinish;
    stream.on('close', () => this.finish());
  }

  connected(): void {
    // `retry` asks EventSource clients to reconnect after 2 s rather than their default 3 s or more.
    this.write(`retry: 2000\nevent: connected\ndata: ${JSON.stringify({ address: this.inbox.address })}\n\n`);
  }

  /** A message stored for the inbox: sent now, or noted while the client is behind. */
  message(event: MessageEvent): void {
    if (this.sent.has(event.id)) return;
    if (this.blockedSince !== undefined || this.catching) this.behind({ id: event.id, inclusive: true });
    else this.send(event);
  }

  /** Reads on from `from` before anything newer goes out (Last-Event-ID, or events missed while blocked). */
  behind(from: Cursor): void {
    if (!this.resumeFrom || from.id < this.resumeFrom.id || (from.id === this.resumeFrom.id && from.inclusive)) this.resumeFrom = from;
    if (this.blockedSince === undefined && !this.catching) void this.catchUp();
  }

  ping(now: Date): void {
    // An inbox that expired while watched is gone: its stream ends with it.
    if (this.inbox.expiresAt && this.inbox.expiresAt <= now) {
      this.end();
      return;
    }
    if (this.blockedSince !== undefined) {
      if (now.getTime() - this.blockedSince > STALL_MS) this.end();
      return; // a full socket needs no keep-alive
    }
    this.write(`event: ping\ndata: ${JSON.stringify({ ts: now.toISOString() })}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stream.end();
    this.finish();
  }

  private async catchUp(): Promise<void> {
    this.catching = true;
    try {
      while (this.resumeFrom && this.blockedSince === undefined && !this.ended) {
        const from = this.resumeFrom;
        this.resumeFrom = undefined;
        const events = await this.read(this.inbox.id, from, PAGE);
        let last: MessageEvent | undefined;
        for (const event of events) {
          if (this.ended) return;
          if (this.blockedSince !== undefined) {
            this.behind({ id: event.id, inclusive: true });
            break;
          }
          if (!this.sent.has(event.id)) this.send(event);
          last = event;
        }
        if (events.length === PAGE && last && this.blockedSince === undefined) this.behind({ id: last.id, inclusive: false });
      }
    } catch {
      this.end(); // the database is away: the client reconnects and resumes from its last event
    } finally {
      this.catching = false;
    }
  }

  private send(event: MessageEvent): void {
    this.sent.add(event.id);
    if (this.sent.size > REMEMBERED_IDS) this.sent.delete(this.sent.values().next().value!);
    const data = { type: 'new_message', id: event.id, from: event.from, subject: event.subject, has_otp: event.hasOtp, tag: event.tag };
    this.write(`id: ${event.id}\nevent: message\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private write(chunk: string): void {
    if (this.ended || this.blockedSince !== undefined) return;
    if (this.stream.write(chunk)) return;
    // Written, but the socket is full: nothing more until it drains.
    this.blockedSince = Date.now();
    this.stream.once('drain', () => {
      this.blockedSince = undefined;
      if (this.resumeFrom && !this.catching) void this.catchUp();
    });
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.ended = true;
    this.onFinish();
  }
}
