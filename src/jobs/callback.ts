// The job callback (docs/api/README.md, "Webhooks"): the webhook the jobs service sends once per job, when it
// ends, and the service's side of the platform's delivery engine.
import type { Queryable } from '../platform/db/index.ts';
import type { Queue } from '../platform/queue.ts';
import { enqueueDelivery, type WebhookService } from '../platform/webhooks/index.ts';
import { webhookSecrets, type FinishedJob } from './store/index.ts';

/** `retryDelaysMs`: JOBS_WEBHOOK_RETRY_DELAYS. */
export function jobsWebhookService(retryDelaysMs: number[]): WebhookService {
  return {
    name: 'jobs',
    headerPrefix: 'X-Metrics',
    retryDelaysMs,
    sendEventHeader: false,
    resolveSecrets: (refs, db) => webhookSecrets(db, refs),
  };
}

/** Enqueues the callback of a job that just ended, in the transaction that ended it; none without a webhook_url. */
export async function enqueueCallback(tx: Queryable, queue: Queue, jobId: string, finished: FinishedJob, publicUrl: string): Promise<void> {
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
