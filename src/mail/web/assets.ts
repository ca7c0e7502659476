// Where the built page lives: `dist/web/` at the repository root, written by `npm run build` (Vite). This
// module sits three folders below the root both as source (src/mail/web/) and as built code (dist/mail/web/),
// so one relative path serves both ways of running.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const WEB_ASSETS_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

export function assetsBuilt(dir: string = WEB_ASSETS_DIR): boolean {
  return existsSync(`${dir}/index.html`);
}
