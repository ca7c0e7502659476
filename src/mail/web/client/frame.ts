// An email's HTML as the srcdoc of a sandboxed frame. Three layers, each enough for scripts: the frame's
// sandbox has no allow-scripts, allow-forms or allow-same-origin; the frame inherits the page's CSP; and the
// document gets a CSP of its own that allows no fetch at all (images only from data:). What could still move
// the frame elsewhere (meta refresh, base, nested frames) is removed while the HTML sits in an inert
// DOMParser document, which itself loads and runs nothing.
export const FRAME_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:";

export const FRAME_SANDBOX = 'allow-popups allow-popups-to-escape-sandbox';

const REMOVED = 'script, noscript, meta, base, link, iframe, frame, frameset, object, embed, applet, portal';

export function frameDocument(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const el of doc.querySelectorAll(REMOVED)) el.remove();
  // A link opens in a new tab (the frame itself may not navigate), without telling the site where from.
  for (const a of doc.querySelectorAll('a[href]')) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer');
  }
  const head = doc.head;
  const csp = doc.createElement('meta');
  csp.httpEquiv = 'Content-Security-Policy';
  csp.content = FRAME_CSP;
  const referrer = doc.createElement('meta');
  referrer.name = 'referrer';
  referrer.content = 'no-referrer';
  const charset = doc.createElement('meta');
  charset.setAttribute('charset', 'utf-8');
  head.prepend(charset, csp, referrer);
  return `<!doctype html>${doc.documentElement.outerHTML}`;
}
