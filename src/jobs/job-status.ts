// A job's life, in one place: its statuses, every transition between them (who makes it, from where, to where)
// and which of them send the job's callback. The API's `status` enum, the table's CHECK, the routes' 409s, the
// engine's and the store's decisions, and the table in docs/api/README.md ("Job states") all speak of these.

export const JOB_STATUSES = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** How the engine ends a job: completed when one of its tasks succeeded, else failed. */
export type FinalStatus = Extract<JobStatus, 'completed' | 'failed'>;

/** Every status a job ends in, each with its callback (`job.<status>`). */
export type EndStatus = FinalStatus | 'cancelled';

/** What moves a job: the engine (`start`, `finish`) or a client's request (the others). */
export type JobAction = 'start' | 'finish' | 'pause' | 'resume' | 'retry' | 'cancel';

interface Transition {
  /** Statuses the action applies to; from any other, the API answers 409 `conflict` with `job_status`. */
  from: readonly JobStatus[];
  to: readonly JobStatus[];
  /** Who makes it: the engine, or the route that asks for it. */
  by: string;
}

export const TRANSITIONS: Readonly<Record<JobAction, Transition>> = {
  start: { from: ['queued'], to: ['running'], by: 'the engine, when the first task starts' },
  finish: { from: ['queued', 'running'], to: ['completed', 'failed'], by: 'the engine, when no task is left' },
  // Soft cancel. A paused job may be paused again: the answer is the job as it is (200), as it always was.
  pause: { from: ['queued', 'running', 'paused'], to: ['paused'], by: 'DELETE /v1/jobs/{id}' },
  // Back to where it stopped: running if a task had started, else queued. A job with no task left (calls in
  // flight when it was paused finished them) then ends at once, as `finish` ends it, with its callback.
  resume: { from: ['paused'], to: ['queued', 'running'], by: 'POST /v1/jobs/{id}/resume' },
  retry: { from: ['completed', 'failed'], to: ['running'], by: 'POST /v1/jobs/{id}/retry' },
  // Hard cancel. Terminal: a cancelled job is never run again (pause it instead to continue later).
  cancel: { from: ['queued', 'running', 'paused'], to: ['cancelled'], by: 'POST /v1/jobs/{id}/cancel' },
};

/** Whether `action` applies to a job in `status`. */
export function allows(action: JobAction, status: JobStatus): boolean {
  return TRANSITIONS[action].from.includes(status);
}

/** The statuses `action` applies to, for people: "queued, running or paused". */
export function appliesTo(action: JobAction): string {
  const from = TRANSITIONS[action].from;
  return from.length > 1 ? `${from.slice(0, -1).join(', ')} or ${from.at(-1)}` : from.join('');
}

/** A job whose tasks may still run (and which a soft-cancel pauses). */
export function isActive(status: JobStatus): status is 'queued' | 'running' {
  return status === 'queued' || status === 'running';
}
