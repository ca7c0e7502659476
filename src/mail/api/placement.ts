// What anonymous generation and programmatic creation share: the domain named in a body, the local part asked
// for, the namespace it may fall in, and the insert that draws another random address while one is taken.
import { Problem, type ValidationIssue } from '../../platform/http/index.ts';
import type { Queryable } from '../../platform/db/index.ts';
import { lookupName, namespaceOf, normaliseLocalPart, randomLocalPart } from '../addresses.ts';
import { domainFor, namespaceClaim, type DomainRow, type InboxRow, type NamespaceClaim } from '../store/index.ts';

const ATTEMPTS = 5;

/** The domain a body names (any case, one trailing dot), or undefined when it is not one of ours. */
export function namedDomain(db: Queryable, name: string): Promise<DomainRow | undefined> {
  return domainFor(db, lookupName(name).replace(/\.$/, ''));
}

export function unknownDomain(name: string): ValidationIssue {
  return {
    path: '/domain',
    location: 'body',
    message: `${JSON.stringify(name)} is not a domain of this service (see GET /api/v1/domains/)`,
  };
}

/** The normalised local part asked for (undefined when none was), or the issue naming /local_part. */
export function requestedLocalPart(requested: string | undefined): { localPart?: string; issue?: ValidationIssue } {
  if (requested === undefined) return {};
  const result = normaliseLocalPart(requested);
  if (!result.ok) return { issue: { path: '/local_part', location: 'body', message: `${JSON.stringify(requested)} ${result.reason}` } };
  return { localPart: result.localPart };
}

/**
 * The claimed namespace a chosen local part falls in on the domain (`<name>.<anything>`): for its owner
 * (`accountId`), the namespace the inbox joins; for anyone else (null: anonymous), 409, since mail to the
 * address is the namespace's. A random local part has no dot, so it asks nothing.
 */
export async function namespaceFor(
  db: Queryable,
  domain: string,
  localPart: string | undefined,
  accountId: string | null,
): Promise<NamespaceClaim | undefined> {
  const name = localPart === undefined ? null : namespaceOf(localPart);
  if (name === null) return undefined;
  const claim = await namespaceClaim(db, domain, name);
  if (claim && claim.accountId !== accountId) {
    throw new Problem('conflict', `${localPart}@${domain} belongs to the namespace ${name}.*@${domain} of another account`);
  }
  return claim;
}

/**
 * Inserts the inbox at `<localPart>@<domain>`, or at a random address when no local part is given (a random
 * part that is taken, 1 in 3.7e15 per live inbox, is simply drawn again). A chosen address held by a live
 * inbox is 409.
 */
export async function placeInbox(
  domain: string,
  localPart: string | undefined,
  insert: (address: string) => Promise<InboxRow | undefined>,
): Promise<InboxRow> {
  for (let attempt = 0; attempt < (localPart ? 1 : ATTEMPTS); attempt++) {
    const address = `${localPart ?? randomLocalPart()}@${domain}`;
    const inbox = await insert(address);
    if (inbox) return inbox;
    if (localPart) throw new Problem('conflict', `${address} is in use by a live inbox`);
  }
  throw new Problem('conflict', 'could not find a free random address; try again');
}
