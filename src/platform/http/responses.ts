// Route schemas declare their error answers with this, so the OpenAPI document lists them as problem+json.
import { STATUS_CODES } from 'node:http';
import { Type } from 'typebox';
import { PROBLEM_CONTENT_TYPE } from './problem.ts';

/**
 * `{ 400: {...}, 404: {...} }` for a route's `response` schema. Described by the status's reason phrase: one
 * status covers several codes (403 is `missing_scope` in one API and `tier_required` in the other).
 */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: STATUS_CODES[status] ?? 'problem details',
        content: { [PROBLEM_CONTENT_TYPE]: { schema: Type.Ref('Problem') } },
      },
    ]),
  );
}
