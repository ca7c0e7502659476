// The page's state: which inbox, its messages, the live stream, the open message and the toast. Every
// change goes through the public API; the list is read again whenever it may have changed (a new message,
// a reconnect), so it never drifts from what the server holds.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Inbox, type Summary } from './api.ts';
import { InboxHeader } from './inbox-header.tsx';
import { watchInbox, type LiveState, type NewMessage } from './live.ts';
import { MessageList } from './message-list.tsx';
import { MessageView } from './message-view.tsx';
import { savedAddress, saveAddress } from './saved.ts';
import { Toast } from './toast.tsx';

type Status = 'loading' | 'ready' | 'expired' | 'unreachable';

async function startingInbox(): Promise<Inbox> {
  const saved = savedAddress();
  if (saved) return api.inbox(saved);
  return api.generate();
}

export function App() {
  const [status, setStatus] = useState<Status>('loading');
  const [inbox, setInbox] = useState<Inbox | null>(null);
  const [messages, setMessages] = useState<Summary[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [live, setLive] = useState<LiveState>('connecting');
  const [toast, setToast] = useState<NewMessage | null>(null);
  const [notice, setNotice] = useState('');
  const address = inbox?.address;
  const listVersion = useRef(0);

  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 404) setStatus('expired');
    else if (err instanceof ApiError && err.status === 0) setStatus('unreachable');
    else setNotice(err instanceof ApiError ? err.message : 'Something went wrong.');
  };

  const use = (next: Inbox) => {
    saveAddress(next.address);
    setInbox(next);
    setMessages([]);
    setSelected(null);
    setStatus('ready');
  };

  const start = () => {
    setStatus('loading');
    startingInbox().then(use, fail);
  };
  useEffect(start, []);

  const refresh = useCallback(() => {
    if (!address) return;
    const version = ++listVersion.current;
    api.messages(address).then((list) => version === listVersion.current && setMessages(list), fail);
  }, [address]);

  useEffect(() => {
    if (!address || status !== 'ready') return;
    return watchInbox(address, {
      state: setLive,
      connected: refresh,
      message: (event) => {
        setToast(event);
        refresh();
      },
      // Refused: the inbox may have expired (404 → the expired state), or the server may be gone.
      refused: () => api.inbox(address).then(() => undefined, fail),
    });
  }, [address, status]);

  // A new random address on the same domain (or the default one, if that domain is gone).
  const newRandom = () =>
    api
      .generate(address?.split('@')[1])
      .catch(() => api.generate())
      .then(use, fail);
  const create = async (domain: string, localPart: string) => use(await api.generate(domain, localPart || undefined));
  const act = (action: () => Promise<void>) => action().then(refresh, fail);

  if (status === 'loading') return <p class="boot">Loading your inbox…</p>;
  if (status === 'unreachable' || status === 'expired' || !inbox) {
    const expired = status === 'expired';
    return (
      <main class="state" data-testid={expired ? 'expired' : 'unreachable'}>
        <h1>{expired ? 'This inbox has expired' : 'The server cannot be reached'}</h1>
        <p>
          {expired
            ? 'Its messages are gone and the address no longer receives mail. Take a new one:'
            : 'Check your connection; the page will work again once the server answers.'}
        </p>
        <button type="button" class="primary" onClick={expired ? newRandom : start}>
          {expired ? 'New address' : 'Try again'}
        </button>
      </main>
    );
  }

  return (
    <main class={selected ? 'inbox has-selection' : 'inbox'}>
      <InboxHeader inbox={inbox} live={live} expired={() => setStatus('expired')} create={create} />
      {live === 'reconnecting' && (
        <p class="banner" role="status">
          Connection lost: reconnecting… New mail will show up once it is back.
        </p>
      )}
      {notice && (
        <p class="banner error" role="alert">
          {notice}{' '}
          <button type="button" class="link" onClick={() => setNotice('')}>
            Dismiss
          </button>
        </p>
      )}
      <div class="panes">
        <MessageList
          messages={messages}
          selected={selected}
          open={setSelected}
          markAllRead={() => act(() => api.markAllRead(inbox.address))}
          clear={() => {
            setSelected(null);
            act(() => api.clear(inbox.address));
          }}
        />
        {selected && (
          <MessageView
            id={selected}
            close={() => setSelected(null)}
            opened={(id) => setMessages((list) => list.map((m) => (m.id === id ? { ...m, is_read: true } : m)))}
            deleted={(id) => {
              setSelected(null);
              setMessages((list) => list.filter((m) => m.id !== id));
            }}
          />
        )}
      </div>
      <Toast event={toast} open={(id) => setSelected(id)} dismiss={() => setToast(null)} />
    </main>
  );
}
