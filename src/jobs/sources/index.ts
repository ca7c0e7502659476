// The job sources. Adding a provider is one file here (its descriptor beside its adapter) and one line in
// JOB_SOURCES; everything else (settings, schemas, queues, the table's columns, results, CSV) follows.
import { ahrefsBacklinks, ahrefsTraffic } from './ahrefs.ts';
import type { SourceDescriptor } from './descriptor.ts';
import { moz } from './moz.ts';
import { ping } from './ping.ts';
import { seokicks } from './seokicks.ts';
import { wayback } from './wayback.ts';

export {
  COLUMN_TYPES,
  type AdapterDeps,
  type SettingReader,
  type SourceDescriptor,
  type SourceLimits,
  type TypedColumn,
} from './descriptor.ts';
export {
  addSpend,
  estimateCalls,
  estimateCost,
  NOTHING_SPENT,
  requestCost,
  splitSpend,
  type Billing,
  type CostBasis,
  type Spend,
} from './cost.ts';
export { sourceRegistry, type SourceRegistry } from './registry.ts';
export { TRANSIENT_ERRORS, type Outcome, type Source } from './source.ts';
export { ping, pingAdapter } from './ping.ts';

/** The sources of the program, in the fixed source order. */
export const JOB_SOURCES: readonly SourceDescriptor[] = [seokicks, moz, ahrefsBacklinks, ahrefsTraffic, wayback, ping];
