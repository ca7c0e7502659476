// Host names as both services accept them (a job's domains, mail domains): the WHATWG URL host parser does
// the IDN work (UTS #46 mapping and punycode); the rules after it are the DNS host name rules.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_LENGTH = 253;

export type Normalised = { ok: true; domain: string } | { ok: false; reason: string };

/** Normalises one requested domain, or says in words why it is not a host name. */
export function normaliseDomain(input: string): Normalised {
  const value = input.trim();
  if (value === '') return refuse('is empty');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^(https?|ftp):/i.test(value)) {
    return refuse('is a URL; send the host name alone, e.g. example.com');
  }
  if (/[/?#\\]/.test(value)) return refuse('contains a path or query; send the host name alone, e.g. example.com');
  if (value.startsWith('[') || isIP(value) !== 0) return refuse('is an IP address; only host names are accepted');
  if (value.includes(':')) return refuse('contains a port; send the host name alone, e.g. example.com');
  if (/[\s@%*_]/.test(value))
    return refuse(`contains a character not allowed in host names (${JSON.stringify(value.match(/[\s@%*_]/)?.[0])})`);

  let ascii = domainToASCII(value.toLowerCase());
  if (ascii === '') return refuse('is not a valid host name');
  if (ascii.endsWith('.')) ascii = ascii.slice(0, -1);
  // The URL parser reads hosts such as "1.2.3" or "0x7f.1" as IPv4 addresses.
  if (isIP(ascii) !== 0) return refuse('is an IP address; only host names are accepted');
  const labels = ascii.split('.');
  if (labels.length < 2) return refuse('needs at least two labels, e.g. example.com');
  for (const label of labels) {
    if (label === '') return refuse('has an empty label (two dots in a row, or a leading dot)');
    if (!LABEL.test(label)) {
      return refuse(
        `has an invalid label "${label}": letters, digits and hyphens, 1 to 63 characters, not starting or ending with a hyphen`,
      );
    }
  }
  if (/^[0-9]+$/.test(labels.at(-1) ?? '')) return refuse('has an all-numeric top-level label');
  if (ascii.length > MAX_LENGTH) return refuse(`is longer than ${MAX_LENGTH} characters`);
  return { ok: true, domain: ascii };
}

function refuse(reason: string): Normalised {
  return { ok: false, reason };
}
