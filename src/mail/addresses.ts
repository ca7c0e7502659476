// Local parts as generation accepts them (docs/decisions.md, "Mail service: domains, inboxes, messages"):
// lower-cased dot-atoms of 1 to 64 characters, never a role name that mail systems reserve.
import { randomInt } from 'node:crypto';

// RFC 5322 atext: letters, digits and these.
const DOT_ATOM = /^[a-z0-9!#$%&'*+\-/=?^_`{|}~]+(\.[a-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;

/** Role names (RFC 2142 and the common ones): handing them to strangers invites abuse of the domain. */
const RESERVED_LOCAL_PARTS: ReadonlySet<string> = new Set([
  'postmaster',
  'abuse',
  'hostmaster',
  'webmaster',
  'root',
  'admin',
  'administrator',
  'noreply',
  'no-reply',
  'mailer-daemon',
  'security',
  'info',
  'support',
  'sales',
  'marketing',
  'billing',
  'www',
  'uucp',
  'ftp',
  'news',
  'usenet',
  'noc',
  'ssl-admin',
  'daemon',
  'nobody',
  'system',
  'operator',
  'donotreply',
  'do-not-reply',
]);

export type LocalPart = { ok: true; localPart: string } | { ok: false; reason: string };

export function normaliseLocalPart(input: string): LocalPart {
  const value = input.trim().toLowerCase();
  if (value === '') return { ok: false, reason: 'is empty' };
  if (value.length > 64) return { ok: false, reason: 'is longer than 64 characters' };
  if (!DOT_ATOM.test(value)) {
    return { ok: false, reason: "is not a dot-atom: letters, digits and !#$%&'*+-/=?^_`{|}~, dots only between them" };
  }
  // A plus-tag or separator variant of a role name is still that role to most mail systems.
  const base = value.split(/[+]/)[0]!;
  if (RESERVED_LOCAL_PARTS.has(value) || RESERVED_LOCAL_PARTS.has(base)) return { ok: false, reason: `"${value}" is a reserved name` };
  return { ok: true, localPart: value };
}

/** A namespace's name: a DNS-label-like word, so the part of a local part before its first dot names it. */
export const NAMESPACE_NAME = /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/;
/** The longest tag kept (messages.tag); a longer one makes the address unknown. */
export const MAX_TAG_LENGTH = 64;

/** What an RCPT TO address may name besides itself (docs/api/README.md, "Tags" and "Namespaces"). */
export interface RecipientParts {
  /** The whole address, as the exact match. */
  address: string;
  domain: string;
  /** `name@domain` of `name+tag@domain`; null when the address has no usable tag. */
  base: string | null;
  /** What followed the first `+`, when `base` is set (null for `name+@domain`). */
  tag: string | null;
  /** The namespace that would own the inbox at `base` (or at `address` when it has no `+`), if its shape allows one. */
  namespace: string | null;
}

/** Splits a lower-cased RCPT address into the inbox it may name and its tag; no lookup. */
export function recipientParts(address: string): RecipientParts {
  const at = address.lastIndexOf('@');
  const local = at < 0 ? address : address.slice(0, at);
  const domain = at < 0 ? '' : address.slice(at + 1);
  const plus = local.indexOf('+');
  // A JS length counts UTF-16 units, never fewer than the characters the column's CHECK counts.
  const tagged = plus > 0 && local.length - plus - 1 <= MAX_TAG_LENGTH;
  const inboxLocal = plus < 0 ? local : tagged ? local.slice(0, plus) : null;
  return {
    address,
    domain,
    base: tagged ? `${inboxLocal}@${domain}` : null,
    tag: tagged ? local.slice(plus + 1) || null : null,
    namespace: inboxLocal === null ? null : namespaceOf(inboxLocal),
  };
}

/** The namespace a local part belongs to (`<namespace>.<dot-atom>`), or null when it has not that shape. */
export function namespaceOf(localPart: string): string | null {
  const dot = localPart.indexOf('.');
  if (dot < 0) return null;
  const name = localPart.slice(0, dot);
  const checked = normaliseLocalPart(localPart);
  return NAMESPACE_NAME.test(name) && checked.ok && checked.localPart === localPart ? name : null;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 10 characters of [a-z0-9] from crypto: 36^10 ≈ 3.7e15 addresses. */
export function randomLocalPart(): string {
  let out = '';
  for (let i = 0; i < 10; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/**
 * A name from a request (an address, a domain) as names are stored: trimmed and lower-cased (they are
 * case-insensitive here). PostgreSQL text cannot carry NUL, so NUL becomes U+FFFD, which no stored name has:
 * such a name is simply not found.
 */
export function lookupName(value: string): string {
  return value.trim().toLowerCase().replaceAll('\u0000', '\uFFFD');
}
