// Server-Sent Events read from a fetch() body, as the HTML standard's EventSource parses them: lines end in
// LF, CRLF or CR; `data` lines join with LF; `id` is remembered for Last-Event-ID (and kept across events
// without one); `retry` sets the reconnection delay; a line starting with `:` is a comment; a blank line
// dispatches (an event without data is dropped). The page reads its stream this way rather than with
// EventSource, which cannot send the X-API-Key header a private inbox needs.
export interface StreamEvent {
  type: string;
  data: string;
  lastEventId: string | undefined;
}

export class EventParser {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  private buffer = '';
  private type = '';
  private data: string[] = [];
  private readonly dispatch: (event: StreamEvent) => void;

  constructor(dispatch: (event: StreamEvent) => void) {
    this.dispatch = dispatch;
  }

  /** A decoded piece of the stream; complete lines are handled now, the rest waits for the next piece. */
  push(text: string): void {
    this.buffer += text;
    for (;;) {
      const end = this.buffer.search(/[\r\n]/);
      // A CR at the very end may be the first half of a CRLF: wait for the next piece to tell.
      if (end < 0 || (end === this.buffer.length - 1 && this.buffer[end] === '\r')) return;
      const line = this.buffer.slice(0, end);
      const crlf = this.buffer[end] === '\r' && this.buffer[end + 1] === '\n';
      this.buffer = this.buffer.slice(end + (crlf ? 2 : 1));
      this.line(line);
    }
  }

  /** The stream ended: an event not closed by a blank line is dropped, as EventSource drops it. */
  reset(): void {
    this.buffer = '';
    this.type = '';
    this.data = [];
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.dispatch({ type: this.type || 'message', data: this.data.join('\n'), lastEventId: this.lastEventId });
      this.type = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value || undefined;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }
}
