// Who is calling: `request.ip` is the client address of every request. It is the socket's peer, unless that
// peer is a proxy listed in TRUSTED_PROXIES: then X-Forwarded-For is walked from its right-most entry leftwards
// past every trusted proxy, and the first address that is not one is the client (Fastify's trustProxy,
// proxy-addr's rule). An untrusted peer's X-Forwarded-For is ignored, so a client cannot name itself another.
// IPv4 clients reaching a dual-stack listener arrive as `::ffff:a.b.c.d`; they are given as `a.b.c.d`, so one
// client has one address whichever way it came (per-client bounds and rate limits key on it).
import ipaddr from 'ipaddr.js';
import type { FastifyRequest } from 'fastify';

/**
 * TRUSTED_PROXIES: comma-separated addresses or CIDRs, in the form Fastify's trustProxy takes them (a bare
 * address is that address alone). Empty: nobody is trusted.
 */
export function parseTrustedProxies(raw: string): { value: string[] } | { problem: string } {
  const value: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const [address, bits, ...rest] = item.split('/');
    const ok =
      rest.length === 0 &&
      ipaddr.isValid(address ?? '') &&
      (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (ipaddr.parse(address!).kind() === 'ipv4' ? 32 : 128)));
    if (!ok) return { problem: `"${item}" is not an IP address or a CIDR such as 10.0.0.0/8 or fd00::/8` };
    value.push(item);
  }
  return { value };
}

/** The trustProxy option of Fastify for these proxies: false (nobody) when there are none. */
export function trustProxyOption(trustedProxies: readonly string[] | undefined): false | string[] {
  return trustedProxies && trustedProxies.length > 0 ? [...trustedProxies] : false;
}

/** `::ffff:a.b.c.d` → `a.b.c.d`; any other address as given. */
export function normaliseAddress(address: string): string {
  return address.length > 7 && address.slice(0, 7).toLowerCase() === '::ffff:' && address.includes('.') ? address.slice(7) : address;
}

/** onRequest: the IPv4-mapped form of `request.ip` replaced by the IPv4 address (the rare dual-stack case). */
export function normaliseClientAddress(request: FastifyRequest): void {
  const ip = request.ip;
  if (ip !== undefined && ip !== normaliseAddress(ip)) {
    // Fastify's `ip` is a getter on the prototype: an own property of this request shadows it.
    Object.defineProperty(request, 'ip', { value: normaliseAddress(ip), enumerable: true });
  }
}
