// All SQL of the jobs service, one file per aggregate. Queries on the request path and the engine's hot path
// are prepared statements named `jobs.<aggregate>.<function>`: each connection plans them once (planning the
// progress aggregate on every read cost more than running it: bench:jobs-api, GET 1,900 → 6,300 requests/s).
export {
  finishIfDone,
  insertJob,
  jobById,
  jobState,
  jobStatusById,
  keyAndJob,
  listJobs,
  pauseJob,
  startJob,
  webhookSecrets,
  type FinishedJob,
  type JobRow,
} from './jobs.ts';
export {
  budgetLimit,
  budgetStates,
  budgetsLeft,
  releaseHolds,
  renewHolds,
  reserveBudget,
  setBudget,
  settleSpending,
  type BudgetState,
  type HoldRequest,
  type Reservation,
} from './budgets.ts';
export { claimIdempotencyKey, jobAsCreated, KEY_LIFE_HOURS, type KeyClaim } from './idempotency.ts';
export { activeKeyByHash, insertKey, listKeys, revokeKey, touchKey, type ActiveKey, type KeyRow } from './keys.ts';
export { acquireSlots, ensureSlots, releaseAllSlots, releaseSlots, renewSlots } from './slots.ts';
export { addTypedColumns, missingTypedColumns } from './task-columns.ts';
export {
  addSpending,
  failRange,
  finishedTasks,
  insertTasks,
  queueDepths,
  unfinishedTasks,
  writeResults,
  type PendingTask,
  type ResultPosition,
  type ResultQuery,
  type ResultRow,
  type TaskResult,
  type TaskSpend,
} from './tasks.ts';
export { countReusable, insertTasksReusing, type Reuse, type SourceRows } from './reuse.ts';
export { ensureTenant, tenantIdByName } from './tenants.ts';
export { usageBySource, type UsageRow } from './usage.ts';
export {
  CANCELLED,
  cancelledAmong,
  cancelRange,
  JOB_CANCELLED_CHANNEL,
  lockJob,
  markCancelled,
  markResumed,
  markRetried,
  type LockedJob,
  type Span,
} from './transitions.ts';
