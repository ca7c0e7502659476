// What a page shows when its inbox answers 404: it has expired, never existed, or is private (the API says
// the same for all three, on purpose). A private inbox opens with its owner's API key, typed into a password
// field; a key that does not open it leaves the page as it was, saying only that nothing opened.
import { useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export function Missing(props: { address: string; newAddress(): void; unlock(key: string): Promise<void> }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  const [error, setError] = useState('');
  const field = useRef<HTMLInputElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!key.trim()) return;
    setBusy(true);
    setError('');
    try {
      await props.unlock(key.trim());
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setTried(true);
      else setError(err instanceof ApiError ? err.message : 'Something went wrong.');
      setKey('');
      field.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="state" data-testid="missing">
      <h1>No such inbox</h1>
      <p data-testid="missing-text">
        <strong class="address-inline">{props.address}</strong> has expired or does not exist, or it is private. Its messages cannot be
        shown here. Take a new address:
      </p>
      <button type="button" class="primary" onClick={props.newAddress}>
        New address
      </button>
      <form class="unlock" onSubmit={submit} aria-label="Open a private inbox">
        <p class="hint">Is it your private inbox? Open it with your API key: it is kept in this tab only.</p>
        <label>
          <span>API key</span>
          <input
            ref={field}
            type="password"
            name="api_key"
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            autocomplete="off"
            spellcheck={false}
            required
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Opening…' : 'Open'}
        </button>
        {tried && !busy && (
          <p class="hint" role="status" data-testid="not-opened">
            Nothing opened with that key.
          </p>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
