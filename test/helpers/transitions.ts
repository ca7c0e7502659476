// What the tests of job transitions share: asking for one (resume, retry, hard or soft cancel), reading a job,
// waiting for the engine to end it, and the callbacks a job has enqueued (the deliveries table: one row per
// callback, whatever the receiver saw).
import { expect } from 'vitest';
import type { TestDatabase } from './db.ts';
import type { client } from './jobs.ts';

export type Call = ReturnType<typeof client>;
export type Action = 'resume' | 'retry' | 'cancel' | 'pause';

export interface JobBody {
  job_id: string;
  status: string;
  finished_at: string | null;
  progress: { total: number; succeeded: number; failed: number; pending: number };
}

export interface ResultBody {
  domain: string;
  source: string;
  status: 'ok' | 'error';
  error: { code: string; message: string } | null;
}

/** The request of each action: pause is the soft cancel, DELETE /v1/jobs/{id}. */
export function act(call: Call, id: string, action: Action, body?: unknown): Promise<Response> {
  if (action === 'pause') return call(`/v1/jobs/${id}`, { method: 'DELETE' });
  return call(`/v1/jobs/${id}/${action}`, { method: 'POST', ...(body === undefined ? {} : { body }) });
}

export async function create(call: Call, body: { domains: string[]; job_types: string[]; webhook_url?: string }): Promise<string> {
  const res = await call('/v1/jobs', { body });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { job_id: string }).job_id;
}

export async function jobOf(call: Call, id: string): Promise<JobBody> {
  return (await (await call(`/v1/jobs/${id}`)).json()) as JobBody;
}

export async function statusOf(call: Call, id: string): Promise<string> {
  return (await jobOf(call, id)).status;
}

/** Every row of the job (`Row`: the fields a test reads, when more than these). */
export async function resultsOf<Row = ResultBody>(call: Call, id: string): Promise<Row[]> {
  return ((await (await call(`/v1/jobs/${id}/results`)).json()) as { results: Row[] }).results;
}

/** Waits until the engine has ended the job (completed or failed); its status then. */
export async function ended(call: Call, id: string, timeout: number): Promise<string> {
  await expect.poll(() => statusOf(call, id), { timeout, interval: 200 }).toMatch(/^(completed|failed)$/);
  return statusOf(call, id);
}

/** The events of the callbacks enqueued for a job, oldest first (`job.completed`, `job.cancelled`, …). */
export async function callbacksOf(db: TestDatabase, id: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ event: string }>(
    `SELECT event FROM deliveries WHERE service = 'jobs' AND subject = $1 ORDER BY created_at, id`,
    [id],
  );
  return rows.map((r) => r.event);
}
