export { createApp, type App, type AppOptions, type RoutePlugin } from './app.ts';
export { DEFAULT_HTTP_LIMITS, type HttpLimits } from './limits.ts';
export { buildMetricsApp, type MetricsAppOptions } from './metrics-listener.ts';
export { invalid, sendProblem, validationProblem } from './errors.ts';
export { Problem, problemBody, PROBLEM_CODES, PROBLEM_CONTENT_TYPE, type ProblemCode, type ValidationIssue } from './problem.ts';
export { problemResponses } from './responses.ts';
export { isUuid } from './ids.ts';
export { dueForTouch, hashToken, presentedCredentials, sameHash, TOUCH_EVERY_MS, unauthorized, type Presented } from './auth.ts';
export { PAGE_CSP, SECURITY_HEADERS } from './headers.ts';
