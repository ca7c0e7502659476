// A webhook_url as both services accept it when it is set: absolute http(s), and (unless private networks are
// allowed) not an address deliveries would refuse anyway, so the caller hears of it at once.
import { isIP } from 'node:net';
import { isPublicAddress } from './policy.ts';

/** Why a webhook_url cannot be used, or undefined. Host names are checked again, on the address, at delivery. */
export function webhookUrlProblem(value: string, allowPrivateNetwork: boolean): string | undefined {
  // The URL parser would drop or escape them, but the value is stored as sent (and PostgreSQL refuses NUL).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'contains a control character';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (allowPrivateNetwork) return undefined;
  // `localhost.` is `localhost`: the trailing dot of a fully qualified name changes nothing.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if ((isIP(host) !== 0 && !isPublicAddress(host)) || host === 'localhost' || host.endsWith('.localhost')) {
    return 'points to a private or loopback address, which callbacks never reach';
  }
  return undefined;
}
