export { buildJobsApp } from './app.ts';
