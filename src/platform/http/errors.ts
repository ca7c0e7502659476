// Turns every error a request can meet (ours, Fastify's, a validator's, a bug) into a problem response.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import {
  PROBLEM_CODES,
  PROBLEM_CONTENT_TYPE,
  Problem,
  problemBody,
  type ProblemBody,
  type ProblemCode,
  type ValidationIssue,
} from './problem.ts';

// Fastify's own 4xx errors, by code, mapped onto our closed list.
const FASTIFY_CODES: Record<string, { code: ProblemCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', detail: 'request bodies must be application/json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', detail: 'request body exceeds the size limit' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_json', detail: 'body is empty but Content-Type is application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_json', detail: 'body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'bad_request', detail: 'Content-Length does not match the body' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'unsupported_media_type', detail: 'Content-Type header is malformed' },
  FST_ERR_BAD_URL: { code: 'bad_request', detail: 'the request path is not a valid URL (bad percent-encoding)' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'uri_too_long', detail: 'a path segment is longer than 1024 characters' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'bad_request', detail: 'the request cannot be routed' },
};

const PARTS: Record<string, ValidationIssue['location']> = {
  body: 'body',
  querystring: 'query',
  params: 'params',
  headers: 'headers',
};

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem = toProblem(error, request);
  if (problem.status >= 500) {
    request.log.error({ err: error }, 'request failed');
  } else if (!(error instanceof Problem)) {
    request.log.info({ code: problem.code, reason: error.message }, 'request refused');
  }
  sendProblem(reply, problem, error instanceof Problem ? error.headers : {});
}

export function sendProblem(reply: FastifyReply, body: ProblemBody, headers: Record<string, string> = {}): void {
  void reply.code(body.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(body);
}

function toProblem(error: FastifyError, request: FastifyRequest): ProblemBody {
  if (error instanceof Problem) return error.body();
  if (error.validation) {
    const location = PARTS[error.validationContext ?? 'body'] ?? 'body';
    return validationProblem(issuesFromAjv(error.validation as ErrorObject[], location));
  }
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) return problemBody(known.code, known.detail);
  // JSON.parse and secure-json-parse failures arrive as SyntaxErrors marked 400.
  if (error instanceof SyntaxError && error.statusCode === 400) return problemBody('invalid_json', 'body is not valid JSON');
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = (Object.keys(PROBLEM_CODES) as ProblemCode[]).find((c) => PROBLEM_CODES[c].status === status);
    return problemBody(code ?? 'bad_request', code ? PROBLEM_CODES[code].title : 'the request cannot be processed');
  }
  return problemBody('internal_error', `an unexpected error occurred (request ${request.id})`);
}

/** A 400 `validation_failed` listing each problem; the detail repeats the first so a person sees it at once. */
export function validationProblem(issues: ValidationIssue[]): ProblemBody {
  const first = issues[0];
  const where = first ? `${first.location}${first.path || ''}` : 'request';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return problemBody('validation_failed', `${where} ${first?.message ?? 'is invalid'}${more}`, { errors: issues });
}

/** Handlers' own validation (rules a schema cannot say) throws this, with the same envelope. */
export function invalid(issues: ValidationIssue[]): Problem {
  const body = validationProblem(issues);
  return new Problem('validation_failed', body.detail, { extra: { errors: issues } });
}

function issuesFromAjv(errors: ErrorObject[], location: ValidationIssue['location']): ValidationIssue[] {
  // A union of constants fails as one "anyOf" plus one "const" per branch: report it once, listing the values.
  const allowedByPath = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword === 'const') {
      const list = allowedByPath.get(e.instancePath) ?? [];
      list.push((e.params as { allowedValue: unknown }).allowedValue);
      allowedByPath.set(e.instancePath, list);
    }
  }
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'const' || e.keyword === 'if') continue;
    let path = e.instancePath;
    let message = e.message ?? 'is invalid';
    switch (e.keyword) {
      case 'required':
        path += `/${escapePointer((e.params as { missingProperty: string }).missingProperty)}`;
        message = 'is required';
        break;
      case 'additionalProperties':
        path += `/${escapePointer((e.params as { additionalProperty: string }).additionalProperty)}`;
        message = 'is not a known field';
        break;
      case 'enum':
        message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
        break;
      case 'anyOf': {
        const allowed = allowedByPath.get(e.instancePath);
        if (allowed) message = `must be one of: ${allowed.join(', ')}`;
        break;
      }
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, location, message });
  }
  return issues;
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
