export { buildJobsApp, type JobsAppDeps } from './api/app.ts';
export { makeKey, parseScopes, type MadeKey } from './admin.ts';
export { jobsWebhookService } from './callback.ts';
export { reportQueueDepth } from './metrics.ts';
export { startEngine, type Engine, type EngineOptions } from './engine/index.ts';
export { BATCH_SIZE, createTaskQueues, deadLetterQueue, INITIAL_ENTRIES, splitRange, taskQueue, type TaskRange } from './queues.ts';
export { createSources, pingSource, type Outcome, type Source, type SourceDeps } from './sources/index.ts';
