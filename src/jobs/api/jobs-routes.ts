// /v1/jobs: create, list, read, results, soft-cancel. Every read names the caller's tenant.
import accepts from 'accepts';
import { Type } from 'typebox';
import type { JobSource } from '../../config.ts';
import { withTransaction } from '../../platform/db/index.ts';
import { invalid, isUuid, Problem, problemResponses, type RoutePlugin, type ValidationIssue } from '../../platform/http/index.ts';
import { normaliseDomain, webhookUrlProblem } from '../../platform/net/index.ts';
import { createJob } from '../create.ts';

import { resultsCsv, toApiResult } from '../results.ts';
import { activeKeyByHash, finishedTasks, jobState, keyAndJob, listJobs, pauseJob, type JobRow } from '../store.ts';
import type { JobsAppDeps } from './app.ts';
import { admit, callerOf, requireScope, tokenHash } from './auth.ts';
import { createJobBody, DEFAULT_PAGE_SIZE, IdParams, ListQuery, securedBy } from './schemas.ts';

const TAGS = ['jobs'];

export function jobsRoutes(deps: JobsAppDeps): RoutePlugin {
  const scope = (s: Parameters<typeof requireScope>[2]) => requireScope(deps.pool, deps.log, s);
  const notFound = (id: string) => new Problem('not_found', `no job ${id}`);

  return async (app) => {
    app.post(
      '/v1/jobs',
      {
        onRequest: scope('jobs:create'),
        schema: {
          tags: TAGS,
          summary: 'Create a job: every domain × every source',
          security: securedBy('jobs:create'),
          body: createJobBody(deps.maxDomains),
          response: { 201: Type.Ref('CreatedJob'), ...problemResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        const { tenantId } = callerOf(request);
        const body = request.body;
        const issues: ValidationIssue[] = [];
        const domains = new Set<string>();
        body.domains.forEach((raw, index) => {
          const result = normaliseDomain(raw);
          if (result.ok) domains.add(result.domain);
          else issues.push({ path: `/domains/${index}`, location: 'body', message: `${JSON.stringify(raw)} ${result.reason}` });
        });
        const webhookUrl = body.webhook_url ?? null;
        if (webhookUrl !== null) {
          const reason = webhookUrlProblem(webhookUrl, deps.allowPrivateNetwork);
          if (reason) issues.push({ path: '/webhook_url', location: 'body', message: reason });
        }
        if (issues.length) throw invalid(issues);
        const { job, webhookSecret } = await createJob(deps.pool, deps.queue, {
          tenantId,
          domains: [...domains],
          jobTypes: body.job_types as JobSource[],
          webhookUrl,
        });
        void reply.code(201).header('location', `/v1/jobs/${job.id}`);
        return { ...jobView(job), ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) };
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
        return { jobs: page.jobs.map(jobView), next_cursor: page.more && last ? last.id : null };
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
      async (request) => {
        const { id } = request.params;
        const hash = tokenHash(request);
        const found = isUuid(id) ? await keyAndJob(deps.pool, hash, id) : { key: await activeKeyByHash(deps.pool, hash) };
        admit(request, deps.pool, deps.log, 'jobs:read', hash, found.key);
        if (!found.job) throw notFound(id);
        return jobView(found.job);
      },
    );

    app.get(
      '/v1/jobs/:id/results',
      {
        onRequest: scope('jobs:read'),
        schema: {
          tags: TAGS,
          summary: 'Finished result rows of a job (JSON, or CSV with Accept: text/csv)',
          security: securedBy('jobs:read'),
          params: IdParams,
          response: {
            200: {
              description: 'one row per finished (domain, source), ordered by domain (request order) then source',
              content: { 'application/json': { schema: Type.Ref('Results') }, 'text/csv': { schema: Type.String() } },
            },
            ...problemResponses(401, 403, 404),
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const tenantId = callerOf(request).tenantId;
        const job = isUuid(id) ? await jobState(deps.pool, tenantId, id) : undefined;
        if (!job) throw notFound(id);
        const rows = await finishedTasks(deps.pool, id);
        if (accepts(request.raw).type(['application/json', 'text/csv']) === 'text/csv') {
          void reply.type('text/csv; charset=utf-8').header('content-disposition', `inline; filename="${id}.csv"`);
          return reply.send(resultsCsv(job.jobTypes, rows));
        }
        return { job_id: id, status: job.status, results: rows.map(toApiResult) };
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
          throw new Problem('conflict', `job ${id} has already ${result.job.status === 'completed' ? 'completed' : 'failed'}`, {
            extra: { job_status: result.job.status },
          });
        }
        return jobView(result.job);
      },
    );
  };
}

/** The job object (`Job` in docs/api/jobs-reference.md); `domains` only when the row carries them (single reads). */
export function jobView(job: JobRow) {
  return {
    job_id: job.id,
    status: job.status,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    job_types: job.jobTypes,
    domain_count: job.domainCount,
    webhook_url: job.webhookUrl,
    progress: { total: job.total, succeeded: job.succeeded, failed: job.failed, pending: job.total - job.succeeded - job.failed },
    ...(job.domains ? { domains: job.domains } : {}),
  };
}
