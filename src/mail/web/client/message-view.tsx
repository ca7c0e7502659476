// One message: its code first (what people came for), then the body as HTML (sandboxed) or text, its links,
// attachments, the raw download and delete.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type InboxApi, type Message } from './api.ts';
import { CopyButton } from './copy-button.tsx';
import { Download } from './download.tsx';
import { FRAME_SANDBOX, frameDocument } from './frame.ts';
import { size, when } from './format.ts';
import { LinkList } from './link-list.tsx';

interface Loaded {
  message: Message;
  otp: string | null;
}

export function MessageView(props: { client: InboxApi; id: string; close(): void; deleted(id: string): void; opened(id: string): void }) {
  const { client } = props;
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState('');
  const [tab, setTab] = useState<'html' | 'text'>('html');
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let current = true;
    setLoaded(null);
    setError('');
    Promise.all([client.message(props.id), client.otp(props.id)]).then(
      ([message, otp]) => {
        if (!current) return;
        setLoaded({ message, otp: otp.found ? otp.otp : null });
        setTab(message.body_html ? 'html' : 'text');
        props.opened(props.id);
      },
      (err: unknown) => current && setError(err instanceof ApiError ? err.message : 'The message could not be loaded.'),
    );
    return () => {
      current = false;
    };
  }, [props.id, client]);
  useEffect(() => heading.current?.focus(), [loaded]);

  const remove = async () => {
    try {
      await client.remove(props.id);
      props.deleted(props.id);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The message could not be deleted.');
    }
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') props.close();
  };

  return (
    <article class="view" aria-label="Message" onKeyDown={onKey}>
      <button type="button" class="link back" onClick={props.close}>
        ← Back to inbox
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!loaded && !error && <p class="hint">Loading…</p>}
      {loaded && (
        <>
          <h2 ref={heading} tabIndex={-1}>
            {loaded.message.subject || '(no subject)'}
          </h2>
          <p class="meta">
            <span>From {loaded.message.from_address || '(unknown sender)'}</span>
            {loaded.message.tag !== null && (
              <span class="tag plus" data-testid="message-tag" title={`Sent to ${loaded.message.to_address}`}>
                <span class="sr-only">Tag: </span>+{loaded.message.tag}
              </span>
            )}
            <time dateTime={loaded.message.received_at}>{when(loaded.message.received_at)}</time>
          </p>
          {loaded.otp && (
            <div class="otp" data-testid="otp">
              <span class="hint">Code</span>
              <output class="code">{loaded.otp}</output>
              <CopyButton text={loaded.otp} label="Copy code" class="primary" />
            </div>
          )}
          <div class="actions">
            <Download client={client} id={props.id} failed={setError} />
            <button type="button" class="danger" onClick={remove}>
              Delete
            </button>
          </div>
          <div role="tablist" class="tabs">
            <button
              type="button"
              role="tab"
              aria-selected={tab === 'html'}
              disabled={!loaded.message.body_html}
              onClick={() => setTab('html')}
            >
              HTML
            </button>
            <button type="button" role="tab" aria-selected={tab === 'text'} onClick={() => setTab('text')}>
              Plain text
            </button>
          </div>
          {tab === 'html' && loaded.message.body_html ? (
            <iframe
              class="body-html"
              title="Message body"
              sandbox={FRAME_SANDBOX}
              referrerpolicy="no-referrer"
              srcdoc={frameDocument(loaded.message.body_html)}
            />
          ) : (
            <pre class="body-text">{loaded.message.body_text ?? ''}</pre>
          )}
          <LinkList links={loaded.message.links} />
          {loaded.message.attachments.length > 0 && (
            <section class="attachments" aria-label="Attachments">
              <h3>Attachments ({loaded.message.attachments.length})</h3>
              <ul>
                {loaded.message.attachments.map((a, i) => (
                  <li key={i}>
                    {a.filename ?? '(unnamed)'} <span class="hint">{size(a.size)}</span>
                  </li>
                ))}
              </ul>
              <p class="hint">Attachments are inside the .eml download.</p>
            </section>
          )}
        </>
      )}
    </article>
  );
}
