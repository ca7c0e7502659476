// Route schemas declare their error answers with this, so the OpenAPI document lists them as problem+json.
import { Type } from 'typebox';
import { PROBLEM_CODES, PROBLEM_CONTENT_TYPE } from './problem.ts';

const STATUS_TEXT: Record<number, string> = Object.fromEntries(
  Object.values(PROBLEM_CODES).map(({ status, title }) => [status, title]),
);

/** `{ 400: {...}, 404: {...} }` for a route's `response` schema. */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: STATUS_TEXT[status] ?? 'problem details',
        content: { [PROBLEM_CONTENT_TYPE]: { schema: Type.Ref('Problem') } },
      },
    ]),
  );
}
