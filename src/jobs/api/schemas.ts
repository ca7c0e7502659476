// The jobs API's request and response schemas: they validate requests and make the OpenAPI document.
import { Type, type TSchema } from 'typebox';
import { JOB_SOURCES } from '../../config.ts';
import { SCOPES, type Scope } from '../keys.ts';
import { TYPED_COLUMNS } from '../results.ts';

/** Both ways to send a key, for each route's OpenAPI `security`, with the scope the route needs. */
export const securedBy = (scope: Scope): Record<string, string[]>[] => [{ bearer: [scope] }, { apiKey: [scope] }];

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
const Source = Type.Enum([...JOB_SOURCES]);
const JobStatus = Type.Enum(['queued', 'running', 'paused', 'completed', 'failed']);

export function createJobBody(maxDomains: number) {
  return Type.Object(
    {
      domains: Type.Array(Type.String({ maxLength: 1024 }), {
        minItems: 1,
        maxItems: maxDomains,
        description: `1 to ${maxDomains} host names; IDNs are converted to punycode, duplicates dropped`,
      }),
      job_types: Type.Array(Source, { minItems: 1, maxItems: JOB_SOURCES.length, uniqueItems: true }),
      webhook_url: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: 'absolute http(s) URL called when the job ends' }))),
    },
    { additionalProperties: false },
  );
}

const jobProperties = {
  job_id: Type.String({ format: 'uuid' }),
  status: JobStatus,
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  job_types: Type.Array(Source),
  domain_count: Type.Integer(),
  webhook_url: Nullable(Type.String()),
  progress: Type.Object({
    total: Type.Integer({ description: 'tasks: domains × sources' }),
    succeeded: Type.Integer(),
    failed: Type.Integer(),
    pending: Type.Integer({ description: 'tasks without a result yet' }),
  }),
};

export const JobSchema = Type.Object(jobProperties, { $id: 'Job' });
export const JobDetailSchema = Type.Object(
  { ...jobProperties, domains: Type.Array(Type.String(), { description: 'the normalised domains, in request order' }) },
  { $id: 'JobDetail' },
);
export const CreatedJobSchema = Type.Object(
  {
    ...jobProperties,
    domains: Type.Array(Type.String()),
    webhook_secret: Type.Optional(Type.String({ description: '64 hex characters; shown only here, when webhook_url is set' })),
  },
  { $id: 'CreatedJob' },
);

export const JobListSchema = Type.Object(
  { jobs: Type.Array(Type.Ref('Job')), next_cursor: Nullable(Type.String({ format: 'uuid' })) },
  { $id: 'JobList' },
);

/** Jobs on a page when the query names no `limit`. */
export const DEFAULT_PAGE_SIZE = 20;

// `limit` is optional so that the document does not call it required; the validator fills in the default.
export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_PAGE_SIZE })),
    cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.String() });

const typedColumns = Object.fromEntries(
  [...new Set(Object.values(TYPED_COLUMNS).flat())].map((c) => [c, Type.Optional(Nullable(Type.Unknown()))]),
);

export const ResultSchema = Type.Object(
  {
    domain: Type.String(),
    source: Source,
    status: Type.Enum(['ok', 'error']),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
    fetched_at: Nullable(Timestamp),
    duration_ms: Nullable(Type.Integer()),
    ...typedColumns,
    raw: Type.Unknown({ description: 'the upstream payload as a JSON object' }),
  },
  { $id: 'Result' },
);

export const ResultsSchema = Type.Object(
  { job_id: Type.String({ format: 'uuid' }), status: JobStatus, results: Type.Array(Type.Ref('Result')) },
  { $id: 'Results' },
);

const Scope = Type.Enum([...SCOPES]);

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(Scope, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
  },
  { additionalProperties: false },
);

export const CreatedKeySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    token: Type.String({ description: 'dm_jobs_…: shown only here' }),
    name: Type.String(),
    scopes: Type.Array(Scope),
    created_at: Timestamp,
  },
  { $id: 'CreatedKey' },
);

export const KeySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    scopes: Type.Array(Scope),
    token_prefix: Type.String({ description: 'the first characters of the token, to tell keys apart' }),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
    revoked_at: Nullable(Timestamp),
  },
  { $id: 'Key' },
);

export const KeyListSchema = Type.Object({ keys: Type.Array(Type.Ref('Key')) }, { $id: 'KeyList' });

export const JOBS_SCHEMAS = [
  JobSchema,
  JobDetailSchema,
  CreatedJobSchema,
  JobListSchema,
  ResultSchema,
  ResultsSchema,
  CreatedKeySchema,
  KeySchema,
  KeyListSchema,
];
