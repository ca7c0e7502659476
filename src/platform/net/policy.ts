// Which addresses outbound requests to user-chosen URLs may reach: public unicast only. Everything else
// (loopback, private, link-local and cloud metadata, CGNAT, multicast, unspecified, reserved, IPv6 ULA and
// link-local) is refused, including when hidden inside IPv4-mapped, NAT64 or 6to4 IPv6 forms.
import ipaddr from 'ipaddr.js';

/** Decides whether a resolved IP address may be connected to. */
export type AddressPolicy = (address: string) => boolean;

export function isPublicAddress(address: string): boolean {
  const host = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(host)) return false;
  const ip = ipaddr.parse(host);
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.range() === 'unicast';
  return v6.range() === 'unicast';
}

export const allowEverything: AddressPolicy = () => true;

/** The policy the ALLOW_PRIVATE_NETWORK setting selects (true only for tests and local use). */
export function policyFor(allowPrivateNetwork: boolean): AddressPolicy {
  return allowPrivateNetwork ? allowEverything : isPublicAddress;
}

/** The IPv4 address an IPv6 form carries, for the forms that route to it (mapped, translated, NAT64, 6to4). */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = v6.range();
  const parts = v6.parts;
  const fromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return fromWords(parts[6]!, parts[7]!);
    case 'rfc6052':
      // 64:ff9b::/96 embeds the address in the last 32 bits; the local-use 64:ff9b:1::/48 is never public.
      return parts[2] === 0 ? fromWords(parts[6]!, parts[7]!) : new ipaddr.IPv4([0, 0, 0, 0]);
    case '6to4':
      return fromWords(parts[1]!, parts[2]!);
    default:
      return undefined;
  }
}
