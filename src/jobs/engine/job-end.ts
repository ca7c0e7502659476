// When a job ends: whichever path wrote its last results (an entry settling, the dead-letter worker), the job
// row is ended and its callback enqueued in that same transaction, so a job ends once, with one callback.
import type { Queryable } from '../../platform/db/index.ts';
import type { Queue } from '../../platform/queue.ts';
import { enqueueCallback } from '../callback.ts';
import { finishIfDone, type FinishedJob } from '../store/index.ts';

/** Ends the job if none of its tasks is left (see `finishIfDone`) and enqueues its callback. */
export async function endJobIfDone(tx: Queryable, queue: Queue, jobId: string, publicUrl: string): Promise<FinishedJob | undefined> {
  const finished = await finishIfDone(tx, jobId);
  if (finished) await enqueueCallback(tx, queue, jobId, finished, publicUrl);
  return finished;
}
