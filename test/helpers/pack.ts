// The package as `npm pack` makes it (its prepack builds it), from a copy of the sources: the build must never
// rewrite the dist/ that other test files of this run serve the web inbox from. It is packed once a run, into
// the run's folder (test/pack-setup.ts), and every test file that opens it reads that one tarball.
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';

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
async function packRepository(work: string): Promise<string> {
  const source = join(work, 'source');
  await mkdir(source);
  for (const input of BUILD_INPUTS) await cp(join(ROOT, input), join(source, input), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  await npm(['pack', '--pack-destination', work], source);
  return join(work, (await readdir(work)).find((name) => name.endsWith('.tgz'))!);
}

/** As long as a test file waits for another one's build: the packing test files' own hook timeout. */
const WAIT_MS = 300_000;

/**
 * The tarball `npm pack` made of the repository in this run: packed by the first test file that asks, under a
 * lock (test files run in processes of their own, maybe at the same time); the others wait for it. Treat it as
 * read-only: unpack or install it elsewhere.
 */
export async function packedTarball(): Promise<string> {
  const dir = inject('packDir');
  if (!dir) throw new Error('no packDir: the run needs test/pack-setup.ts among its globalSetup');
  const done = join(dir, 'tarball');
  const failed = join(dir, 'failed');
  const won = await mkdir(join(dir, 'lock')).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return false;
      throw err;
    },
  );
  if (won) {
    try {
      const work = join(dir, 'work');
      await mkdir(work);
      const tarball = await packRepository(work);
      // Written whole, then renamed into place: a waiting file never reads half a path.
      await writeFile(`${done}.partial`, tarball);
      await rename(`${done}.partial`, done);
      return tarball;
    } catch (err) {
      await writeFile(failed, String((err as Error).stack ?? err));
      throw err;
    }
  }
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const tarball = await readFile(done, 'utf8').catch(() => undefined);
    if (tarball) return tarball;
    const error = await readFile(failed, 'utf8').catch(() => undefined);
    if (error) throw new Error(`npm pack failed in another test file of this run:\n${error}`);
    await sleep(250);
  }
  throw new Error(`npm pack by another test file of this run did not finish within ${WAIT_MS / 1000} s`);
}
