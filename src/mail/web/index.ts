export { webRoutes, type WebOptions } from './routes.ts';
export { assetsBuilt, WEB_ASSETS_DIR } from './assets.ts';
