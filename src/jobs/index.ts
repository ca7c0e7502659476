export { buildJobsApp } from './api/index.ts';
export { makeKey, parseScopes } from './admin.ts';
export { budgetRecord, formatBudget, listTenantBudgets, setTenantBudget } from './budgets.ts';
export { jobsWebhookService } from './callback.ts';
export { parseMaxAge } from './max-age.ts';
export { reportQueueDepth } from './metrics.ts';
export { startEngine, type Engine, type EngineTimings } from './engine/index.ts';
export { createTaskQueues, INITIAL_ENTRIES } from './queues.ts';
export { ensureSourceColumns } from './source-columns.ts';
export {
  JOB_SOURCES,
  ping,
  pingAdapter,
  sourceRegistry,
  type SettingReader,
  type SourceDescriptor,
  type SourceLimits,
} from './sources/index.ts';
