// The job callback (docs/api/README.md, "Webhooks"): the webhook the jobs service sends once per job, when it
// ends.
import type { Config } from '../config.ts';
import type { Queryable } from '../platform/db/index.ts';
import type { Queue } from '../platform/queue.ts';
import { enqueueDelivery, type WebhookService } from '../platform/webhooks/index.ts';
import { finishIfDone, webhookSecrets, type FinishedJob } from './store.ts';

export function jobsWebhookService(config: Pick<Config, 'jobs'>): WebhookService {
  return {
    name: 'jobs',
    headerPrefix: 'X-Metrics',
    retryDelaysMs: config.jobs.webhookRetryDelaysMs,
    sendEventHeader: false,
    resolveSecrets: (refs, db) => webhookSecrets(db, refs),
  };
}

/**
 * Ends the job if none of its tasks is left (see `finishIfDone`) and enqueues its callback in the same
 * transaction: the one way a job ends, whichever path wrote its last results.
 */
export async function endJobIfDone(tx: Queryable, queue: Queue, jobId: string, publicUrl: string): Promise<FinishedJob | undefined> {
  const finished = await finishIfDone(tx, jobId);
  if (finished) await enqueueCallback(tx, queue, jobId, finished, publicUrl);
  return finished;
}

async function enqueueCallback(tx: Queryable, queue: Queue, jobId: string, finished: FinishedJob, publicUrl: string): Promise<void> {
  if (!finished.webhookUrl) return;
  const body = JSON.stringify({
    job_id: jobId,
    status: finished.status,
    completed_at: finished.finishedAt.toISOString(),
    results_url: `${publicUrl.replace(/\/+$/, '')}/v1/jobs/${jobId}/results`,
  });
  await enqueueDelivery(tx, queue, {
    service: 'jobs',
    event: `job.${finished.status}`,
    subject: jobId,
    url: finished.webhookUrl,
    body,
    secretRef: jobId,
  });
}
