// The current inbox survives a reload: its address is kept in localStorage (nothing else is: messages are
// read from the API again).
const KEY = 'domainkit.inbox';

export function savedAddress(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage disabled: a new inbox on every load
  }
}

export function saveAddress(address: string | null): void {
  try {
    if (address) localStorage.setItem(KEY, address);
    else localStorage.removeItem(KEY);
  } catch {
    // nothing to keep it in
  }
}
