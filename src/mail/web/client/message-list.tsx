// The inbox's messages, newest first, unread ones marked, each with its tag (name+tag@domain) when it has
// one; each row is a button, so Tab and Enter work.
import type { Summary } from './api.ts';
import { when } from './format.ts';

export function MessageList(props: {
  messages: Summary[];
  selected: string | null;
  open(id: string): void;
  markAllRead(): void;
  clear(): void;
}) {
  const unread = props.messages.filter((m) => !m.is_read).length;
  return (
    <section class="list" aria-label="Messages">
      <div class="toolbar">
        <h2>
          Inbox{' '}
          {unread > 0 && (
            <span class="badge">
              {unread}
              <span class="sr-only"> unread</span>
            </span>
          )}
        </h2>
        <button type="button" class="secondary" onClick={props.markAllRead} disabled={unread === 0}>
          Mark all read
        </button>
        <button type="button" class="secondary" onClick={props.clear} disabled={props.messages.length === 0}>
          Clear
        </button>
      </div>
      {props.messages.length === 0 ? (
        <div class="empty" data-testid="empty">
          <p class="pulse" aria-hidden="true" />
          <p>Waiting for mail…</p>
          <p class="hint">Messages appear here the moment they arrive; no need to reload.</p>
        </div>
      ) : (
        <ul>
          {props.messages.map((m) => (
            <li key={m.id}>
              <button
                type="button"
                class={`row${m.is_read ? '' : ' unread'}${m.id === props.selected ? ' selected' : ''}`}
                aria-current={m.id === props.selected}
                onClick={() => props.open(m.id)}
                data-testid="message-row"
              >
                <span class="from">
                  {!m.is_read && (
                    <>
                      <span class="dot" aria-hidden="true" />
                      <span class="sr-only">Unread: </span>
                    </>
                  )}
                  {m.from_address || '(unknown sender)'}
                </span>
                <time>{when(m.received_at)}</time>
                <span class="subject">
                  {m.subject || '(no subject)'}
                  {m.has_otp && <span class="tag">code</span>}
                  {m.tag !== null && (
                    <span class="tag plus" data-testid="tag">
                      <span class="sr-only">Tag: </span>+{m.tag}
                    </span>
                  )}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
