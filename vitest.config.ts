import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files that measure the process they run against (resident memory): they run after every other file, alone,
 * so that the others' load does not change what they measure.
 */
const ALONE = ['test/jobs/api/results-memory.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts', 'test/web-build.ts', 'test/browser-setup.ts', 'test/pack-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // Each file gets its own database, so files run in parallel safely. Two at a time even on 2 cores (vitest's
    // default is one fewer than the cores): most files wait on sockets, timers and PostgreSQL, not on CPU.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
    // expect.poll waits bound how long a test waits for something to happen, never how fast it happens: the
    // default (1 s) would be a speed assertion on a busy machine. A poll that needs longer says so itself.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...ALONE] } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
