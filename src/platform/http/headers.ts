// The security headers of the pages the APIs serve: the web inbox at `/` (mail) and the API reference at
// `/docs` (both). Each page runs only its own script files, never inline code, and reaches nothing but its own
// origin. The web inbox shows an email's HTML in a sandboxed srcdoc frame, which inherits this policy and adds
// its own stricter one (see src/mail/web/client/frame.ts), so nothing an email contains can run or reach the
// network.
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // 'unsafe-inline' for styles only: a srcdoc frame inherits this policy, and emails are laid out with
  // inline styles. Scripts stay 'self' only; style injection into our own page is not possible (Preact
  // escapes text, and email HTML never reaches the page's document).
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  // The email frame is srcdoc; nothing may navigate it (a meta refresh, a link) to another page.
  "frame-src 'none'",
  "child-src 'none'",
  "worker-src 'none'",
  "object-src 'none'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};
