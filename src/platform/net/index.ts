export { createOutbound, OutboundError, type Outbound, type OutboundResponse, type RedirectHop } from './client.ts';
export { allowEverything, isPublicAddress, policyFor } from './policy.ts';
export { normaliseDomain, type Normalised } from './hostname.ts';
export { webhookUrlProblem } from './webhook-url.ts';
