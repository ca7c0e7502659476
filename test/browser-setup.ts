// The browser the web tests drive: CHROMIUM_PATH when set, else the Chromium shipped inside the
// `@sparticuz/chromium` npm package (a devDependency), so `npm install && npm test` needs no system package.
// It is unpacked once per version into the temp folder; the unpacking goes to a folder of its own first and is
// then renamed into place, so two test runs starting together never see a half-written browser.
import { mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumPath: string;
  }
}

export default async function setup(project: TestProject) {
  project.provide('chromiumPath', process.env.CHROMIUM_PATH ?? (await unpackedChromium()));
}

async function unpackedChromium(): Promise<string> {
  // The package exports no package.json: read it beside its entry point (build/cjs/index.cjs).
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const { version } = JSON.parse(await readFile(join(dirname(entry), '../../package.json'), 'utf8')) as { version: string };
  const home = join(tmpdir(), `domainkit-chromium-${version}`);
  const binary = join(home, 'chromium');
  if (await isFile(binary)) return binary;
  const scratch = await mkdtemp(join(tmpdir(), 'domainkit-chromium-unpack-'));
  // The package unpacks into os.tmpdir() (TMPDIR): point that at the scratch folder for the call.
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
  try {
    const { default: chromium } = await import('@sparticuz/chromium');
    await chromium.executablePath();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  await rename(scratch, home).catch(async (err: NodeJS.ErrnoException) => {
    // Another run renamed its copy into place first: use that one.
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    await rm(scratch, { recursive: true, force: true });
  });
  return binary;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}
