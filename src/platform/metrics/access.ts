// Who may read /metrics (METRICS_ALLOW). Metrics tell routes, providers and volumes, so by default only
// loopback and private networks get them. The socket's peer decides; the forwarding headers can only narrow
// that, never widen it: every client a request names in Forwarded, X-Forwarded-For or X-Real-IP must pass as
// well, so a reverse proxy on loopback that forwards outside clients does not open metrics to them.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

export type MetricsAccess =
  | { mode: 'all' }
  | { mode: 'none' }
  /** Clients in the private networks (when `private`) or in one of `ranges`. */
  | { mode: 'listed'; private: boolean; ranges: Cidr[] };

/** The default: loopback, RFC 1918, link-local, IPv6 ULA, and the IPv4-mapped forms of the IPv4 ones. */
export const PRIVATE_NETWORKS: MetricsAccess = { mode: 'listed', private: true, ranges: [] };

const PRIVATE_V4 = new Set(['loopback', 'private', 'linkLocal']);
const PRIVATE_V6 = new Set(['loopback', 'uniqueLocal', 'linkLocal']);
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;
const EXPECTED = 'expected private, all, none, or a comma-separated list of CIDRs (private may be one of them)';

/** METRICS_ALLOW: `private`, `all`, `none`, or CIDRs (a bare address is a /32 or /128), `private` among them. */
export function parseMetricsAllow(raw: string): { value: MetricsAccess } | { problem: string } {
  const text = raw.trim().toLowerCase();
  if (text === 'all' || text === 'none') return { value: { mode: text } };
  let includesPrivate = false;
  const ranges: Cidr[] = [];
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    if (item === 'private') {
      includesPrivate = true;
      continue;
    }
    const cidr = parseCidr(item);
    if (!cidr) return { problem: `"${item}" is not a CIDR such as 10.0.0.0/8 or fd00::/8; ${EXPECTED}` };
    ranges.push(cidr);
  }
  if (!includesPrivate && ranges.length === 0) return { problem: EXPECTED };
  return { value: { mode: 'listed', private: includesPrivate, ranges } };
}

/** Whether a request from `peer` (the socket's remote address) with these headers may read the metrics. */
export function isMetricsClientAllowed(access: MetricsAccess, peer: string | undefined, headers: NodeJS.Dict<string[]>): boolean {
  if (access.mode === 'all') return true;
  if (access.mode === 'none') return false;
  const clients = [peer === undefined ? undefined : nodeAddress(peer), ...forwardedClients(headers)];
  return clients.every((client) => client !== undefined && isListed(access, client));
}

function isListed(access: Extract<MetricsAccess, { mode: 'listed' }>, address: Address): boolean {
  const ip =
    address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
  if (access.private && (ip.kind() === 'ipv4' ? PRIVATE_V4 : PRIVATE_V6).has(ip.range())) return true;
  return access.ranges.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits));
}

/**
 * Every client the forwarding headers name (`undefined` for one that is not an IP address: `unknown`, an
 * obfuscated name, garbage). Empty list entries name nobody and are skipped.
 */
function forwardedClients(headers: NodeJS.Dict<string[]>): (Address | undefined)[] {
  const clients: (Address | undefined)[] = [];
  for (const name of FORWARDING_HEADERS) {
    for (const value of headers[name] ?? []) {
      for (const element of value.split(',').map((s) => s.trim())) {
        if (element === '') continue;
        if (name !== 'forwarded') {
          clients.push(nodeAddress(element));
          continue;
        }
        for (const pair of element.split(';').map((s) => s.trim())) {
          if (pair === '') continue;
          const eq = pair.indexOf('=');
          if (eq <= 0) {
            clients.push(undefined); // not a parameter: the header cannot be read
            continue;
          }
          if (pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
          clients.push(nodeAddress(unquote(pair.slice(eq + 1).trim())));
        }
      }
    }
  }
  return clients;
}

/** An address as peers and proxies write it: bare, `[v6]`, `[v6]:port`, `v4:port`, an IPv6 zone allowed. */
function nodeAddress(text: string): Address | undefined {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return strictAddress(bracketed[1]!, true);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  return strictAddress(withPort ? withPort[1]! : text, true);
}

/** Four-part decimal IPv4 or IPv6 only: ipaddr.js would also take `127.1` or `0x7f000001`, which no peer sends. */
function strictAddress(text: string, allowZone: boolean): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  const host = allowZone ? text.replace(/%[^%]+$/, '') : text;
  return host.includes(':') && ipaddr.IPv6.isValid(host) ? ipaddr.IPv6.parse(host) : undefined;
}

function parseCidr(item: string): Cidr | undefined {
  const slash = item.indexOf('/');
  const address = strictAddress(slash < 0 ? item : item.slice(0, slash), false);
  if (!address) return undefined;
  const max = address.kind() === 'ipv4' ? 32 : 128;
  const bitsText = slash < 0 ? String(max) : item.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > max) return undefined;
  const bits = Number(bitsText);
  // ::ffff:10.0.0.0/104 names IPv4 clients, which are matched in their IPv4 form.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

/** A quoted-string parameter value of Forwarded (RFC 7239), its backslash escapes undone. */
function unquote(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}
