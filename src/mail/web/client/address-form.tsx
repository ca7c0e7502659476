// Another address: a domain from /domains/ and a local part of one's own (or a random one).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Domain } from './api.ts';

export function AddressForm(props: { current: string; create(domain: string, localPart: string): Promise<void> }) {
  const [domains, setDomains] = useState<Domain[]>([]);
  const [domain, setDomain] = useState(props.current.split('@')[1] ?? '');
  const [local, setLocal] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.domains().then(setDomains, () => setError('The domains could not be loaded.'));
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await props.create(domain, local.trim());
      setLocal('');
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Something went wrong.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="address-form" onSubmit={submit} aria-label="Choose another address">
      <label>
        <span>Name</span>
        <input
          name="local_part"
          value={local}
          onInput={(e) => setLocal(e.currentTarget.value)}
          placeholder="random"
          autocomplete="off"
          spellcheck={false}
          maxLength={64}
        />
      </label>
      <span class="at">@</span>
      <label>
        <span>Domain</span>
        <select name="domain" value={domain} onChange={(e) => setDomain(e.currentTarget.value)}>
          {domains.map((d) => (
            <option key={d.name} value={d.name} disabled={!d.is_public || d.tier_required > 0}>
              {d.name}
              {!d.is_public || d.tier_required > 0 ? ' (accounts only)' : ''}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Creating…' : 'Use this address'}
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
