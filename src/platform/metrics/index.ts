export { metricsText, registry } from './registry.ts';
export { isMetricsClientAllowed, parseMetricsAllow, PRIVATE_NETWORKS, type MetricsAccess } from './access.ts';
