export {
  createOutbound,
  guardedLookup,
  OutboundError,
  MAX_BODY_BYTES,
  type Outbound,
  type OutboundErrorKind,
  type OutboundOptions,
  type OutboundRequest,
  type OutboundResponse,
  type RedirectHop,
} from './client.ts';
export { allowEverything, isPublicAddress, policyFor, type AddressPolicy } from './policy.ts';
export { normaliseDomain, type Normalised } from './hostname.ts';
export { webhookUrlProblem } from './webhook-url.ts';
