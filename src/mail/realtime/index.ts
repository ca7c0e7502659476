export { createHub, type Hub } from './hub.ts';
export { createWaiters, type WaitRequest, type Waiters } from './waiters.ts';
export { NIL_UUID, type WaitFilters, type WaitOutcome } from './waiter.ts';
