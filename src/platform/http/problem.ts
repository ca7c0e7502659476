// RFC 9457 problem details: the one error envelope of both APIs, and the one place that writes it.
import { Type, type Static } from 'typebox';

/** The closed list of error codes, each with its HTTP status and title. */
export const PROBLEM_CODES = {
  invalid_json: { status: 400, title: 'Malformed JSON' },
  validation_failed: { status: 400, title: 'Validation failed' },
  invalid_cursor: { status: 400, title: 'Invalid cursor' },
  bad_request: { status: 400, title: 'Bad request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  missing_scope: { status: 403, title: 'Missing scope' },
  tier_required: { status: 403, title: 'Tier required' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  budget_exceeded: { status: 422, title: 'Budget exceeded' },
  uri_too_long: { status: 414, title: 'URI too long' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  rate_limited: { status: 429, title: 'Too many requests' },
  too_many_connections: { status: 429, title: 'Too many connections' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export const ValidationIssueSchema = Type.Object(
  {
    path: Type.String({ description: 'JSON pointer into the request part named by `location`' }),
    location: Type.Union([Type.Literal('body'), Type.Literal('query'), Type.Literal('params'), Type.Literal('headers')]),
    message: Type.String(),
  },
  { $id: 'ValidationIssue' },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI of the problem type: urn:domainkit:problem:<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'stable snake_case error code' }),
    errors: Type.Optional(Type.Array(Type.Ref('ValidationIssue'))),
  },
  { $id: 'Problem', additionalProperties: true },
);

export type ValidationIssue = Static<typeof ValidationIssueSchema>;
export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  errors?: ValidationIssue[];
  [extra: string]: unknown;
};

/** Thrown by handlers (or hooks) to answer with a problem; the app's error handler writes it. */
export class Problem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(code: ProblemCode, detail: string, options: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {}) {
    super(detail);
    this.name = 'Problem';
    this.code = code;
    this.status = PROBLEM_CODES[code].status;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }

  body(): ProblemBody {
    return problemBody(this.code, this.message, this.extra);
  }
}

export function problemBody(code: ProblemCode, detail: string, extra: Record<string, unknown> = {}): ProblemBody {
  const { status, title } = PROBLEM_CODES[code];
  return { type: `urn:domainkit:problem:${code}`, title, status, detail, code, ...extra };
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
