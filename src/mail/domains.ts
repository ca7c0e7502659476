// Mail domains beyond MAIL_DOMAINS, added with `domainkit mail domains add`.
import { normaliseDomain } from '../platform/net/index.ts';
import type { DomainRow } from './store/index.ts';

/** The domain row to add, checked before any database is opened. Throws with a message for the CLI. */
export function domainToAdd(name: string, options: { isPublic: boolean; tierRequired: number }): DomainRow {
  const result = normaliseDomain(name);
  if (!result.ok) throw new Error(`${JSON.stringify(name)} ${result.reason}`);
  if (!Number.isInteger(options.tierRequired) || options.tierRequired < 0 || options.tierRequired > 1000) {
    throw new Error('--tier takes an integer from 0 to 1000');
  }
  return { name: result.domain, ...options };
}
