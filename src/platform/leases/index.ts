export { startClientLeases, type ClientLeases, type Lease, type LeaseOptions } from './leases.ts';
export { heldCount } from './store.ts';
