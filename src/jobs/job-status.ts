// A job's life: queued → running → completed or failed; queued or running → paused (soft-cancel), for good.
// The API's `status` enum, the table's CHECK and the engine's and store's decisions all speak of these.

export const JOB_STATUSES = ['queued', 'running', 'paused', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** How a job ends: completed when one of its tasks succeeded, else failed. */
export type FinalStatus = Extract<JobStatus, 'completed' | 'failed'>;

/** A job whose tasks may still run (and which a soft-cancel pauses). */
export function isActive(status: JobStatus): status is 'queued' | 'running' {
  return status === 'queued' || status === 'running';
}

export function isFinal(status: JobStatus): status is FinalStatus {
  return status === 'completed' || status === 'failed';
}
