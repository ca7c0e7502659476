export { createHub, type Hub, type HubOptions } from './hub.ts';
