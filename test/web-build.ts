// Tests run from source, but the web inbox is served from its Vite build (dist/web/). Build it once for the
// run when any client file is newer than the build (or there is none), so a test never sees a stale page.
import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WEB_ASSETS_DIR } from '../src/mail/web/index.ts';

const SOURCES = ['src/mail/web/client', 'src/mail/web/vite.config.ts'];

async function newest(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(path);
  return Math.max(info.mtimeMs, ...(await Promise.all(entries.map((e) => newest(join(path, e))))));
}

export default async function setup() {
  const built = await stat(join(WEB_ASSETS_DIR, 'index.html')).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  const source = Math.max(...(await Promise.all(SOURCES.map(newest))));
  if (built > source) return;
  await promisify(execFile)(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'src/mail/web/vite.config.ts']);
}
