// The page's state: which inbox (the URL's `#address`, else the one kept from last time, else a new one), the
// key it was opened with if it is private, its messages, the live stream, the open message and the toast.
// Every change goes through the public API; the list is read again whenever it may have changed (a new
// message, a reconnect), so it never drifts from what the server holds.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Inbox, inboxApi, type Summary } from './api.ts';
import { InboxHeader } from './inbox-header.tsx';
import { watchInbox, type LiveState, type NewMessage } from './live.ts';
import { MessageList } from './message-list.tsx';
import { MessageView } from './message-view.tsx';
import { Missing } from './missing.tsx';
import { keepLinkOnlyFor, linkedAddress, savedAddress, saveAddress, savedKey, saveKey } from './saved.ts';
import { Toast } from './toast.tsx';

type Status = 'loading' | 'ready' | 'missing' | 'unreachable';

export function App() {
  const [status, setStatus] = useState<Status>('loading');
  // The inbox the page is about (shown, or asked for and not found) and the API key it is opened with.
  const [wanted, setWanted] = useState<{ address: string; key: string | null } | null>(null);
  const [inbox, setInbox] = useState<Inbox | null>(null);
  const [messages, setMessages] = useState<Summary[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [live, setLive] = useState<LiveState>('connecting');
  const [toast, setToast] = useState<NewMessage | null>(null);
  const [notice, setNotice] = useState('');
  const client = useMemo(() => wanted && inboxApi(wanted.address, wanted.key), [wanted]);
  const address = status === 'ready' ? inbox?.address : undefined;
  const listVersion = useRef(0);

  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 404) setStatus('missing');
    else if (err instanceof ApiError && err.status === 0) setStatus('unreachable');
    else setNotice(err instanceof ApiError ? err.message : 'Something went wrong.');
  };

  const use = (next: Inbox, key: string | null) => {
    saveAddress(next.address);
    saveKey(next.address, key);
    keepLinkOnlyFor(next.address);
    setWanted({ address: next.address, key });
    setInbox(next);
    setMessages([]);
    setSelected(null);
    setStatus('ready');
  };

  /** Opens `asked` with `key` (null: anonymously); rejects with the API's refusal. */
  const open = (asked: string, key: string | null) =>
    inboxApi(asked, key)
      .inbox()
      .then((found) => use(found, key));

  const start = () => {
    setStatus('loading');
    const asked = linkedAddress() ?? savedAddress();
    if (!asked) {
      api.generate().then((next) => use(next, null), fail);
      return;
    }
    setWanted({ address: asked, key: null });
    const key = savedKey(asked);
    open(asked, key).catch((err: unknown) => {
      // A kept key that no longer opens the inbox (revoked, or the inbox is gone) is forgotten.
      if (key && err instanceof ApiError && err.status === 404) saveKey(asked, null);
      fail(err);
    });
  };
  useEffect(() => {
    start();
    window.addEventListener('hashchange', start);
    return () => window.removeEventListener('hashchange', start);
  }, []);

  const refresh = useCallback(() => {
    if (!client) return;
    const version = ++listVersion.current;
    client.messages().then((list) => version === listVersion.current && setMessages(list), fail);
  }, [client]);

  useEffect(() => {
    if (!client || !address) return;
    return watchInbox(client, {
      state: setLive,
      connected: refresh,
      message: (event) => {
        setToast(event);
        refresh();
      },
      // Refused: the inbox may have expired (404 → the missing state), or the server may be gone.
      refused: () => client.inbox().then(() => undefined, fail),
    });
  }, [client, address]);

  // A new random address on the same domain (or the default one, if that domain is gone).
  const newRandom = () =>
    api
      .generate(wanted?.address.split('@')[1])
      .catch(() => api.generate())
      .then((next) => use(next, null), fail);
  const create = async (domain: string, localPart: string) => use(await api.generate(domain, localPart || undefined), null);
  const act = (action: () => Promise<void>) => action().then(refresh, fail);
  const lock = () => {
    if (!wanted) return;
    saveKey(wanted.address, null);
    setWanted({ address: wanted.address, key: null });
    setStatus('missing');
  };

  if (status === 'loading') return <p class="boot">Loading your inbox…</p>;
  if (status === 'missing' && wanted) {
    return <Missing address={wanted.address} newAddress={newRandom} unlock={(key) => open(wanted.address, key)} />;
  }
  if (status !== 'ready' || !inbox || !client) {
    return (
      <main class="state" data-testid="unreachable">
        <h1>The server cannot be reached</h1>
        <p>Check your connection; the page will work again once the server answers.</p>
        <button type="button" class="primary" onClick={start}>
          Try again
        </button>
      </main>
    );
  }

  return (
    <main class={selected ? 'inbox has-selection' : 'inbox'}>
      <InboxHeader inbox={inbox} live={live} lock={client.keyed ? lock : null} expired={() => setStatus('missing')} create={create} />
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
          markAllRead={() => act(client.markAllRead)}
          clear={() => {
            setSelected(null);
            act(client.clear);
          }}
        />
        {selected && (
          <MessageView
            client={client}
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
