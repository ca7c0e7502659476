// The next_cursor of a page of results. Opaque to clients; it holds the job, the filters its pages follow and
// the last row given, so a later page needs nothing else and a cursor cannot be carried to another job. It is
// not signed: whoever edits one can only reach rows of a job their key already reads.
import { Problem } from '../../platform/http/index.ts';
import type { SourceRegistry } from '../sources/index.ts';
import type { ResultPosition, ResultQuery } from '../store/index.ts';

const VERSION = 'r1';

export type ResultFilter = Pick<ResultQuery, 'source' | 'state'>;

export function writeCursor(jobId: string, filter: ResultFilter, last: ResultPosition): string {
  const text = [VERSION, jobId.toLowerCase(), filter.source ?? '', filter.state ?? '', last.position, last.source].join('.');
  return Buffer.from(text).toString('base64url');
}

/**
 * The filters and position of a cursor made for this job. Filters the request names must be the cursor's own
 * (another filter would silently change what the earlier pages meant); omitted ones are the cursor's.
 */
export function readCursor(
  cursor: string,
  jobId: string,
  given: ResultFilter,
  sources: SourceRegistry,
): { filter: ResultFilter; after: ResultPosition } {
  const refuse = (why: string) => new Problem('invalid_cursor', `cursor ${why}`);
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const parts = text.split('.');
  if (Buffer.from(text).toString('base64url') !== cursor || parts.length !== 6 || parts[0] !== VERSION) {
    throw refuse('is not a next_cursor this API returned');
  }
  const [, job, source, state, position, lastSource] = parts as [string, string, string, string, string, string];
  if (job !== jobId.toLowerCase()) throw refuse(`was made for another job, not ${jobId}`);
  const filter: ResultFilter = { source: source || undefined, state: state === 'ok' || state === 'error' ? state : undefined };
  if (
    !/^\d{1,9}$/.test(position) ||
    !sources.get(lastSource) ||
    (source !== '' && !sources.get(source)) ||
    (state !== '' && filter.state === undefined)
  ) {
    throw refuse('is not a next_cursor this API returned');
  }
  if ((given.source !== undefined && given.source !== filter.source) || (given.state !== undefined && given.state !== filter.state)) {
    throw refuse(
      `was made for source=${filter.source ?? '(any)'} and status=${filter.state ?? '(any)'}; repeat those filters or leave them out`,
    );
  }
  return { filter, after: { position: Number(position), source: lastSource } };
}
