// The jobs API's request and response schemas: they validate requests, make the OpenAPI document, and type the
// views (`Static<>`). Sources, and so `job_types` and the typed columns of results, come from the source registry.
import { Type, type Static, type TSchema } from 'typebox';
import { JOB_STATUSES } from '../job-status.ts';
import { SCOPES, type Scope } from '../keys.ts';
import { MAX_AGE_LIMIT_SECONDS, MAX_AGE_PATTERN } from '../max-age.ts';
import type { SourceRegistry } from '../sources/index.ts';
import { costSchemas } from './cost-schemas.ts';

/** Both ways to send a key, for each route's OpenAPI `security`, with the scope the route needs. */
export const securedBy = (scope: Scope): Record<string, string[]>[] => [{ bearer: [scope] }, { apiKey: [scope] }];

const Nullable = <T extends TSchema>(schema: T, options = {}) => Type.Union([schema, Type.Null()], options);
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
const JobStatusSchema = Type.Enum([...JOB_STATUSES]);

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

/** Result rows on one page at most (`limit`), and on a page asked by `cursor` alone. */
export const MAX_RESULTS_PAGE = 1000;
export const DEFAULT_RESULTS_PAGE = 100;

/** The schemas that name sources: `job_types` and the typed columns of results are the registry's. */
export function jobsSchemas(sources: SourceRegistry, maxDomains: number) {
  const Source = Type.Enum([...sources.names]);
  const costs = costSchemas(sources);

  const createJobBody = Type.Object(
    {
      domains: Type.Array(Type.String({ maxLength: 1024 }), {
        minItems: 1,
        maxItems: maxDomains,
        description: `1 to ${maxDomains} host names; IDNs are converted to punycode, duplicates dropped`,
      }),
      job_types: Type.Array(Source, { minItems: 1, maxItems: sources.names.length, uniqueItems: true }),
      webhook_url: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: 'absolute http(s) URL called when the job ends' }))),
      max_age: Type.Optional(
        Type.Union(
          [Type.Integer({ minimum: 0, maximum: MAX_AGE_LIMIT_SECONDS }), Type.String({ pattern: MAX_AGE_PATTERN, maxLength: 10 })],
          {
            description:
              'how old a reused result may be: seconds, or a duration such as "7d", "12h", "30m"; 0 fetches every row. ' +
              'A row whose (domain, source) has an ok result at least this fresh from an earlier job is filled from it at ' +
              "creation, with no upstream call (cached_from). Default: the deployment's JOBS_CACHE_MAX_AGE (0 unless set)",
          },
        ),
      ),
      dry_run: Type.Optional(
        Type.Boolean({ description: 'true: answer what the job would fetch and cost (200 DryRun); nothing is stored or queued' }),
      ),
    },
    { additionalProperties: false },
  );

  const jobProperties = {
    job_id: Type.String({ format: 'uuid' }),
    status: JobStatusSchema,
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
    cost: costs.jobCost,
  };
  const job = Type.Object(jobProperties, { $id: 'Job' });
  const jobDetail = Type.Object(
    { ...jobProperties, domains: Type.Array(Type.String(), { description: 'the normalised domains, in request order' }) },
    { $id: 'JobDetail' },
  );
  const createdJob = Type.Object(
    {
      ...jobProperties,
      domains: Type.Array(Type.String()),
      webhook_secret: Type.Optional(Type.String({ description: '64 hex characters; shown only here, when webhook_url is set' })),
    },
    { $id: 'CreatedJob' },
  );
  const jobList = Type.Object(
    { jobs: Type.Array(Type.Ref('Job')), next_cursor: Nullable(Type.String({ format: 'uuid' })) },
    { $id: 'JobList' },
  );

  const typedColumns = Object.fromEntries(sources.columns.map((c) => [c.name, Type.Optional(Nullable(Type.Unknown()))]));
  const result = Type.Object(
    {
      domain: Type.String(),
      source: Source,
      status: Type.Enum(['ok', 'error']),
      error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
      fetched_at: Nullable(Timestamp),
      duration_ms: Nullable(Type.Integer()),
      cost: costs.rowCost,
      cached_from: Nullable(Type.String({ format: 'uuid' }), {
        description: "the job whose upstream call fetched this result, when it was reused (max_age); fetched_at is that call's time",
      }),
      ...typedColumns,
      raw: Type.Unknown({ description: 'the upstream payload as a JSON object' }),
    },
    { $id: 'Result' },
  );
  const results = Type.Object(
    { job_id: Type.String({ format: 'uuid' }), status: JobStatusSchema, results: Type.Array(Type.Ref('Result')) },
    { $id: 'Results' },
  );
  // No default for `limit`: without it (and without `cursor`) the answer is every row, as before paging existed.
  const resultsQuery = Type.Object(
    {
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: MAX_RESULTS_PAGE, description: 'rows per page: the answer is a ResultPage with next_cursor' }),
      ),
      cursor: Type.Optional(
        Type.String({ maxLength: 300, description: `next_cursor of the previous page (${DEFAULT_RESULTS_PAGE} rows without limit)` }),
      ),
      source: Type.Optional(Type.Enum([...sources.names], { description: "only this source's rows: one of the job's job_types" })),
      status: Type.Optional(Type.Enum(['ok', 'error'], { description: 'only rows with this status' })),
    },
    // Other parameters are ignored, as they were before paging and filters existed (a cache-buster keeps working).
    { additionalProperties: true },
  );
  const resultPage = Type.Object(
    {
      job_id: Type.String({ format: 'uuid' }),
      status: JobStatusSchema,
      results: Type.Array(Type.Ref('Result')),
      next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next page; null on the last one' })),
    },
    { $id: 'ResultPage' },
  );

  return {
    createJobBody,
    job,
    jobDetail,
    createdJob,
    result,
    resultsQuery,
    resultPage,
    usageQuery: costs.usageQuery,
    /** Every schema with an `$id`, in the order of the document's components. */
    components: [
      job,
      jobDetail,
      createdJob,
      jobList,
      result,
      results,
      resultPage,
      ...costs.components,
      CreatedKeySchema,
      KeySchema,
      KeyListSchema,
    ],
  };
}

export type JobsSchemas = ReturnType<typeof jobsSchemas>;
export type JobView = Static<JobsSchemas['job']>;
export type JobDetailView = Static<JobsSchemas['jobDetail']>;
export type CreatedJobView = Static<JobsSchemas['createdJob']>;
/** A result row: the common fields, then the row's own source's typed columns (by name), then `raw`. */
export type ResultView = Static<JobsSchemas['result']> & Record<string, unknown>;
export type ResultsQuery = Static<JobsSchemas['resultsQuery']>;
export type ResultPageView = Omit<Static<JobsSchemas['resultPage']>, 'results'> & { results: ResultView[] };

const ScopeName = Type.Enum([...SCOPES]);

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
  },
  { additionalProperties: false },
);

const CreatedKeySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    token: Type.String({ description: 'dm_jobs_…: shown only here' }),
    name: Type.String(),
    scopes: Type.Array(ScopeName),
    created_at: Timestamp,
  },
  { $id: 'CreatedKey' },
);

const KeySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    scopes: Type.Array(ScopeName),
    token_prefix: Type.String({ description: 'the first characters of the token, to tell keys apart' }),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
    revoked_at: Nullable(Timestamp),
  },
  { $id: 'Key' },
);

const KeyListSchema = Type.Object({ keys: Type.Array(Type.Ref('Key')) }, { $id: 'KeyList' });

export type CreatedKeyView = Static<typeof CreatedKeySchema>;
export type KeyView = Static<typeof KeySchema>;
