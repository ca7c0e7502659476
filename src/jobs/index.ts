export { buildJobsApp, type JobsAppDeps } from './api/app.ts';
