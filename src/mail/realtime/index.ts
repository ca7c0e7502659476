export { createHub, type Hub } from './hub.ts';
