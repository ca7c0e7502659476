// What the delivery engine counts: every attempt it records, by the service whose webhook it was, its number
// (bounded by the service's retry schedule) and its outcome.
import { Counter } from 'prom-client';
import { registry } from '../metrics/index.ts';
import type { AttemptOutcome } from './store.ts';

const deliveryAttempts = new Counter({
  name: 'domainkit_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts recorded, by service (jobs, mail), attempt number and outcome (delivered, retry, dropped, failed).',
  labelNames: ['service', 'attempt', 'outcome'] as const,
  registers: [registry],
});

export function countAttempt(service: string, attempt: number, outcome: AttemptOutcome): void {
  deliveryAttempts.inc({ service, attempt: String(attempt), outcome });
}
