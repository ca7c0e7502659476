// The package as `npm pack` makes it (its prepack builds it), from a copy of the sources: the build must never
// rewrite the dist/ that other test files of this run serve the web inbox from.
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What the build reads: everything else of the repository stays out of the copy. */
const BUILD_INPUTS = [
  'package.json',
  'package-lock.json',
  '.npmrc',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'bin',
  'src',
  'migrations',
  'docs',
];

/** The npm that runs this test run (`npm test` names itself in npm_execpath), else the one on PATH. */
export function npm(args: string[], cwd: string) {
  const options = { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: 'error' } };
  const cli = process.env.npm_execpath;
  return cli ? run(process.execPath, [cli, ...args], options) : run('npm', args, options);
}

/** Packs the repository into `work` (a copy of the sources goes to `work/source`); the tarball's path. */
export async function packRepository(work: string): Promise<string> {
  const source = join(work, 'source');
  await mkdir(source);
  for (const input of BUILD_INPUTS) await cp(join(ROOT, input), join(source, input), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  await npm(['pack', '--pack-destination', work], source);
  return join(work, (await readdir(work)).find((name) => name.endsWith('.tgz'))!);
}
