// The packed package is built once a run, by the first test file that asks for it (test/helpers/pack.ts
// `packedTarball`), into a folder of this run, so the other test files that open it do not pay another full
// build. Nothing is packed here: a run without those files (a single test file) costs no build at all.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    packDir: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'domainkit-pack-'));
  project.provide('packDir', dir);
  // A rerun in watch mode packs the sources as they are then, not as they were at the first run.
  project.onTestsRerun(async () => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
  });
  return () => rm(dir, { recursive: true, force: true });
}
