// What survives a reload. The current inbox's address is kept in localStorage (nothing else is: messages are
// read from the API again). A private inbox's API key is kept only in sessionStorage, under its address: it
// lasts as long as the tab, is never written to localStorage, and never goes into a URL.
const KEY = 'domainkit.inbox';
const API_KEY = 'domainkit.key:';

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

/** The API key this tab opened `address` with, if any. */
export function savedKey(address: string): string | null {
  try {
    return sessionStorage.getItem(API_KEY + address.toLowerCase());
  } catch {
    return null;
  }
}

export function saveKey(address: string, key: string | null): void {
  try {
    if (key) sessionStorage.setItem(API_KEY + address.toLowerCase(), key);
    else sessionStorage.removeItem(API_KEY + address.toLowerCase());
  } catch {
    // storage disabled: the key must be given again after a reload
  }
}

/** The address the page's URL names (`/#name@domain`), if it names one. */
export function linkedAddress(): string | null {
  let named: string;
  try {
    named = decodeURIComponent(location.hash.slice(1)).trim();
  } catch {
    return null;
  }
  return /^[^\s@/]+@[^\s@/]+$/.test(named) ? named : null;
}

/** Keeps the URL's `#address` only while it names the inbox shown, so a reload shows that one. */
export function keepLinkOnlyFor(address: string): void {
  const named = linkedAddress();
  if (named !== null && named.toLowerCase() !== address.toLowerCase()) history.replaceState(null, '', location.pathname + location.search);
}
