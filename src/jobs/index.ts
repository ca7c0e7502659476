export { buildJobsApp, type JobsAppDeps } from './api/app.ts';
export { makeKey, parseScopes, type MadeKey } from './admin.ts';
export { BATCH_SIZE, createTaskQueues, sliceSize, taskQueue, type TaskSlice } from './queues.ts';
