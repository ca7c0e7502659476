// An address that exists already (one's own private inbox, an inbox made over the API): the page moves to
// `/#address`, which opens it (or says there is no such inbox, and offers the API key field).
import { useState } from 'preact/hooks';

export function OpenForm() {
  const [address, setAddress] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    const wanted = address.trim();
    if (wanted) location.hash = encodeURIComponent(wanted).replace('%40', '@');
  };
  return (
    <form class="address-form" onSubmit={submit} aria-label="Open an existing address">
      <label>
        <span>Existing address</span>
        <input
          name="address"
          inputMode="email"
          value={address}
          onInput={(e) => setAddress(e.currentTarget.value)}
          placeholder="name@domain"
          autocomplete="off"
          spellcheck={false}
          required
        />
      </label>
      <button type="submit">Open</button>
    </form>
  );
}
