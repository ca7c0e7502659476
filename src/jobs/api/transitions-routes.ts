// /v1/jobs/{id}/resume, /retry and /cancel: the transitions a client asks for (job-status.ts has them all; soft
// cancel stays DELETE /v1/jobs/{id}, in jobs-routes.ts). A transition that does not apply is 409 `conflict`
// with the job's `job_status`.
import { Type } from 'typebox';
import { isUuid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { appliesTo, type JobAction } from '../job-status.ts';
import { cancelJob, resumeJob, retryJob, type TransitionDeps, type TransitionResult } from '../transitions.ts';
import { callerOf, requireScope } from './auth.ts';
import type { JobsAppDeps } from './deps.ts';
import { IdParams, securedBy } from './schemas.ts';
import { jobView } from './views.ts';

const TAGS = ['jobs'];

const RetryBody = Type.Object(
  {
    errors: Type.Optional(
      Type.Union([Type.Literal('transient'), Type.Literal('all')], {
        default: 'transient',
        description:
          '`transient` (the default): rows whose error may clear by itself (`upstream_unavailable`, `upstream_rate_limited`, ' +
          '`internal_error`); `all`: every error row (after fixing credentials, a plan or a budget)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** From which statuses, in the operation's description. */
const applies = (action: JobAction) => `Applies to a job that is ${appliesTo(action)}; any other is 409 \`conflict\`.`;

export function transitionsRoutes(deps: JobsAppDeps): RoutePlugin {
  const scope = requireScope(deps.pool, deps.log, 'jobs:create');
  const transitions: TransitionDeps = deps;
  const answer = (id: string, result: TransitionResult) => {
    if (result.outcome === 'not_found') throw new Problem('not_found', `no job ${id}`);
    if (result.outcome === 'conflict') throw new Problem('conflict', result.detail, { extra: { job_status: result.status } });
    return jobView(result.job, deps.sources);
  };
  const schema = (summary: string, description: string) => ({
    tags: TAGS,
    summary,
    description,
    security: securedBy('jobs:create'),
    params: IdParams,
    response: { 200: Type.Ref('JobDetail'), ...problemResponses(401, 403, 404, 409) },
  });

  return async (app) => {
    app.post(
      '/v1/jobs/:id/resume',
      {
        onRequest: scope,
        schema: schema(
          'Resume a paused job where it stopped',
          'Its unfinished rows are queued again (rows already done are not fetched again); the job is `running` again, or ' +
            `\`queued\` when none of its tasks had started. ${applies('resume')}`,
        ),
      },
      async (request) => {
        const { id } = request.params;
        if (!isUuid(id)) throw new Problem('not_found', `no job ${id}`);
        return answer(id, await resumeJob(transitions, callerOf(request).tenantId, id));
      },
    );

    app.post(
      '/v1/jobs/:id/retry',
      {
        onRequest: scope,
        schema: {
          ...schema(
            'Run the error rows of an ended job again',
            'The chosen error rows are queued again and the job is `running` until it ends again, with a new callback. ' +
              `No such row is 409 too. ${applies('retry')}`,
          ),
          body: RetryBody,
          response: { 200: Type.Ref('JobDetail'), ...problemResponses(400, 401, 403, 404, 409, 413, 415) },
        },
        // No body at all is the empty object: the default choice.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => {
        const { id } = request.params;
        if (!isUuid(id)) throw new Problem('not_found', `no job ${id}`);
        return answer(id, await retryJob(transitions, callerOf(request).tenantId, id, request.body.errors ?? 'transient'));
      },
    );

    app.post(
      '/v1/jobs/:id/cancel',
      {
        onRequest: scope,
        schema: schema(
          'Hard-cancel: abort the upstream calls in flight and end the job `cancelled`',
          'Its unfinished rows end as error rows `cancelled`, every worker aborts the calls it is making for it, and the ' +
            `callback is sent (\`status: cancelled\`). A cancelled job is never run again. ${applies('cancel')}`,
        ),
      },
      async (request) => {
        const { id } = request.params;
        if (!isUuid(id)) throw new Problem('not_found', `no job ${id}`);
        return answer(id, await cancelJob(transitions, callerOf(request).tenantId, id));
      },
    );
  };
}
