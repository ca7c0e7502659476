export { webRoutes } from './routes.ts';
export { WEB_ASSETS_DIR } from './assets.ts';
