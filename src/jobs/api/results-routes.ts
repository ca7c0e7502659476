// GET /v1/jobs/{id}/results: a job's finished rows, whole (JSON or CSV, as before paging existed), a page at a
// time (`limit`, `cursor`), or streamed as NDJSON; `source` and `status` filter every form. One order everywhere:
// domain in request order, then source by code point.
import accepts from 'accepts';
import { Type } from 'typebox';
import { invalid, isUuid, Problem, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { finishedTasks, jobState, type ResultQuery } from '../store/index.ts';
import { callerOf, requireScope } from './auth.ts';
import type { JobsAppDeps } from './deps.ts';
import { readCursor, writeCursor, type ResultFilter } from './result-cursor.ts';
import { resultsCsv, resultView } from './results.ts';
import { resultLines, type PositionedRow } from './results-stream.ts';
import { DEFAULT_RESULTS_PAGE, IdParams, securedBy, type JobsSchemas, type ResultPageView, type ResultsQuery } from './schemas.ts';

const NDJSON = 'application/x-ndjson';

export function resultsRoutes(deps: JobsAppDeps, schemas: JobsSchemas): RoutePlugin {
  const read = (jobId: string, query: ResultQuery) => finishedTasks(deps.pool, jobId, deps.sources.columns, query);

  return async (app) => {
    app.get(
      '/v1/jobs/:id/results',
      {
        onRequest: requireScope(deps.pool, deps.log, 'jobs:read'),
        schema: {
          tags: ['jobs'],
          summary: 'Finished result rows of a job: JSON, a page at a time, CSV (Accept: text/csv) or NDJSON (Accept: application/x-ndjson)',
          description:
            'Without `limit` and `cursor`: every finished row that matches the filters, as `Results` (or CSV, or NDJSON). With `limit` ' +
            '(or `cursor`): one page, as `ResultPage`; pass its `next_cursor` as `cursor` for the next. `source` and `status` filter ' +
            'every form; a cursor keeps the filters of the page that made it. NDJSON and CSV are never paged: `limit` or `cursor` ' +
            'with them is 400. NDJSON streams one row per line, read from the database as the client reads.',
          security: securedBy('jobs:read'),
          params: IdParams,
          querystring: schemas.resultsQuery,
          response: {
            200: {
              description: 'one row per finished (domain, source), ordered by domain (request order) then source',
              content: {
                // ResultPage first: the serializer takes the first schema an answer fits, and a page fits Results too.
                'application/json': { schema: Type.Union([Type.Ref('ResultPage'), Type.Ref('Results')]) },
                'text/csv': { schema: Type.String() },
                [NDJSON]: { schema: Type.String({ description: 'one Result per line' }) },
              },
            },
            ...problemResponses(400, 401, 403, 404),
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const job = isUuid(id) ? await jobState(deps.pool, callerOf(request).tenantId, id) : undefined;
        if (!job) throw new Problem('not_found', `no job ${id}`);
        const query: ResultsQuery = request.query;
        const given: ResultFilter = { source: query.source, state: query.status };
        if (given.source !== undefined && !job.jobTypes.includes(given.source)) {
          const message = `job ${id} has no source ${given.source}; its sources are ${job.jobTypes.join(', ')}`;
          throw invalid([{ location: 'query', path: '/source', message }]);
        }
        const format = accepts(request.raw).type(['application/json', 'text/csv', NDJSON]);
        const paged = query.limit !== undefined || query.cursor !== undefined;
        if (paged && (format === 'text/csv' || format === NDJSON)) {
          const message = `pages are JSON only; ${format} gives every matching row: leave out limit and cursor`;
          throw invalid([{ location: 'query', path: query.limit !== undefined ? '/limit' : '/cursor', message }]);
        }

        if (paged) {
          const { filter, after } =
            query.cursor === undefined ? { filter: given, after: undefined } : readCursor(query.cursor, id, given, deps.sources);
          const limit = query.limit ?? DEFAULT_RESULTS_PAGE;
          const rows = await read(id, { ...filter, after, limit: limit + 1 });
          const page = rows.slice(0, limit);
          const last = page.at(-1);
          const answer: ResultPageView = {
            job_id: id,
            status: job.status,
            results: page.map((row) => resultView(row, deps.sources)),
            next_cursor: rows.length > limit && last ? writeCursor(id, filter, last) : null,
          };
          return answer;
        }

        if (format === NDJSON) {
          const line = reply.compileSerializationSchema(schemas.result as unknown as Record<string, unknown>) as (row: unknown) => string;
          const stream = resultLines(
            (after, limit) => read(id, { ...given, after, limit }),
            (row: PositionedRow) => line(resultView(row, deps.sources)),
          );
          stream.once('close', () => {
            if (!stream.readableEnded) request.log.info({ job_id: id, rows_sent: stream.rowsSent }, 'results stream closed before its end');
          });
          return reply.type(NDJSON).send(stream);
        }

        const rows = await read(id, given);
        if (format === 'text/csv') {
          void reply.type('text/csv; charset=utf-8').header('content-disposition', `inline; filename="${id}.csv"`);
          return reply.send(resultsCsv(job.jobTypes, rows, deps.sources));
        }
        return { job_id: id, status: job.status, results: rows.map((row) => resultView(row, deps.sources)) };
      },
    );
  };
}
