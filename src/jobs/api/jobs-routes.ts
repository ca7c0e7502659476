// /v1/jobs: create, list, read, soft-cancel (results: results-routes.ts). Every read names the caller's tenant.
import { Type } from 'typebox';
import { withTransaction } from '../../platform/db/index.ts';
import { invalid, isUuid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { checkJobRequest, createJob, IdempotencyKeyReused } from '../create.ts';
import { BudgetExceeded } from '../estimate.ts';
import { parseMaxAge } from '../max-age.ts';
import type { Reuse } from '../store/index.ts';
import { activeKeyByHash, KEY_LIFE_HOURS, keyAndJob, listJobs, pauseJob } from '../store/index.ts';
import { admit, callerOf, requireScope, tokenHash } from './auth.ts';
import { dryRunView } from './dry-run.ts';
import type { JobsRates } from './rate-limits.ts';
import type { JobsAppDeps } from './deps.ts';
import type { DryRunView } from './cost-schemas.ts';
import { DEFAULT_PAGE_SIZE, IdParams, ListQuery, securedBy, type CreatedJobView, type JobsSchemas } from './schemas.ts';
import { jobView } from './views.ts';

const TAGS = ['jobs'];

/** Stripe's convention: any printable ASCII, up to 255 characters (a UUID is the usual choice). */
const CreateJobHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description: `makes retries safe: the same key and body within ${KEY_LIFE_HOURS} h answer the first request's job`,
    }),
  ),
});

export function jobsRoutes(deps: JobsAppDeps, schemas: JobsSchemas, rates: JobsRates): RoutePlugin {
  const scope = (s: Parameters<typeof requireScope>[2]) => requireScope(deps.pool, deps.log, s);
  const notFound = (id: string) => new Problem('not_found', `no job ${id}`);

  return async (app) => {
    app.post(
      '/v1/jobs',
      {
        onRequest: scope('jobs:create'),
        preHandler: rates.creationHook,
        schema: {
          tags: TAGS,
          summary: 'Create a job: every domain × every source',
          description:
            `With an \`Idempotency-Key\` header, the same key and body within ${KEY_LIFE_HOURS} h answer the job the first request made ` +
            '(the same 201 and body, `webhook_secret` included when the first answer had it, and `Idempotent-Replayed: true`); ' +
            'the same key with another body is 422 `idempotency_key_reused`. ' +
            'With `max_age`, rows with a fresh enough earlier result are filled at creation without an upstream call. ' +
            'With `"dry_run": true` the answer is 200 `DryRun` (what the job would fetch, reuse and cost) and nothing is made. ' +
            "A job whose rows to fetch are estimated over what a source's monthly budget has left is 422 `budget_exceeded` " +
            '(with `source`, `estimate`, `left`, `monthly_limit`, `month`).',
          security: securedBy('jobs:create'),
          headers: CreateJobHeaders,
          body: schemas.createJobBody,
          response: { 200: Type.Ref('DryRun'), 201: Type.Ref('CreatedJob'), ...problemResponses(400, 401, 403, 413, 415, 422) },
        },
      },
      async (request, reply): Promise<CreatedJobView | DryRunView> => {
        const { tenantId } = callerOf(request);
        const checked = checkJobRequest(request.body, deps.allowPrivateNetwork);
        if (!checked.ok) throw invalid(checked.issues);
        const maxAge =
          request.body.max_age === undefined
            ? { ok: true as const, seconds: deps.reuse.defaultMaxAgeSeconds }
            : parseMaxAge(request.body.max_age);
        if (!maxAge.ok) throw invalid([{ path: '/max_age', location: 'body', message: maxAge.reason }]);
        const reuse: Reuse | undefined =
          maxAge.seconds > 0 ? { tenantId, maxAgeSeconds: maxAge.seconds, shared: deps.reuse.shared } : undefined;
        const planned = { tenantId, domains: checked.domains, jobTypes: request.body.job_types, reuse };
        if (request.body.dry_run === true) return dryRunView(deps, planned, maxAge.seconds);
        const key = request.headers['idempotency-key'];
        const created = await createJob(deps.pool, deps.queue, deps.sources, {
          ...planned,
          webhookUrl: checked.webhookUrl,
          idempotency: key === undefined ? undefined : { key, body: request.body },
          publicUrl: deps.publicUrl,
        }).catch((err: unknown) => {
          if (err instanceof BudgetExceeded) throw budgetProblem(err);
          if (!(err instanceof IdempotencyKeyReused)) throw err;
          throw new Problem(
            'idempotency_key_reused',
            `Idempotency-Key ${JSON.stringify(key)} was used in the last ${KEY_LIFE_HOURS} h with another request body; use a new key for another request`,
          );
        });
        const { job, webhookSecret } = created;
        if (created.replayed) void reply.header('idempotent-replayed', 'true');
        void reply.code(201).header('location', `/v1/jobs/${job.id}`);
        return { ...jobView(job, deps.sources), ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) };
      },
    );

    app.get(
      '/v1/jobs',
      {
        onRequest: scope('jobs:read'),
        schema: {
          tags: TAGS,
          summary: "List the tenant's jobs, newest first",
          security: securedBy('jobs:read'),
          querystring: ListQuery,
          response: { 200: Type.Ref('JobList'), ...problemResponses(400, 401, 403) },
        },
      },
      async (request) => {
        const { tenantId } = callerOf(request);
        const { limit = DEFAULT_PAGE_SIZE, cursor } = request.query;
        if (cursor !== undefined && !isUuid(cursor)) throw new Problem('invalid_cursor', 'cursor is not a next_cursor this API returned');
        const page = await listJobs(deps.pool, tenantId, limit, cursor?.toLowerCase());
        if (!page.ok) throw new Problem('invalid_cursor', 'cursor is not one of your jobs');
        const last = page.jobs.at(-1);
        return { jobs: page.jobs.map((job) => jobView(job, deps.sources)), next_cursor: page.more && last ? last.id : null };
      },
    );

    app.get(
      '/v1/jobs/:id',
      {
        schema: {
          tags: TAGS,
          summary: 'Read a job, with its domains and progress',
          security: securedBy('jobs:read'),
          params: IdParams,
          response: { 200: Type.Ref('JobDetail'), ...problemResponses(401, 403, 404) },
        },
      },
      // The most polled route reads its key and its job in one query, and checks the key as every route does
      // (no hook: nothing of this request is validated before the handler, so the order is the same).
      async (request, reply) => {
        const { id } = request.params;
        const hash = tokenHash(request);
        const found = isUuid(id) ? await keyAndJob(deps.pool, hash, id) : { key: await activeKeyByHash(deps.pool, hash) };
        admit(request, deps.pool, deps.log, 'jobs:read', hash, found.key);
        await rates.charge(request, reply);
        if (!found.job) throw notFound(id);
        return jobView(found.job, deps.sources);
      },
    );

    app.delete(
      '/v1/jobs/:id',
      {
        onRequest: scope('jobs:create'),
        schema: {
          tags: TAGS,
          summary: 'Soft-cancel: a queued or running job becomes paused',
          security: securedBy('jobs:create'),
          params: IdParams,
          response: { 200: Type.Ref('JobDetail'), ...problemResponses(401, 403, 404, 409) },
        },
      },
      async (request) => {
        const { id } = request.params;
        const tenantId = callerOf(request).tenantId;
        if (!isUuid(id)) throw notFound(id);
        const result = await withTransaction(deps.pool, (tx) => pauseJob(tx, tenantId, id));
        if (result.outcome === 'not_found') throw notFound(id);
        if (result.outcome === 'finished') {
          throw new Problem('conflict', `job ${id} has already ${result.job.status}`, {
            extra: { job_status: result.job.status },
          });
        }
        return jobView(result.job, deps.sources);
      },
    );
  };
}

/** 422 budget_exceeded naming the source, its estimate and what its budget has left this month. */
function budgetProblem({ shortfall: s }: BudgetExceeded): Problem {
  const unit = s.unit ?? '';
  return new Problem(
    'budget_exceeded',
    `the job would spend about ${s.estimate} ${unit} on ${s.source}, and its budget for ${s.month} has ${Math.max(0, s.left)} ${unit} left ` +
      `(limit ${s.limit}); raise the budget (PUT /v1/budgets), use fewer domains, or reuse fresh results (max_age)`,
    { extra: { source: s.source, unit: s.unit, estimate: s.estimate, left: s.left, monthly_limit: s.limit, month: s.month } },
  );
}
