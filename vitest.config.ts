import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts', 'test/web-build.ts', 'test/browser-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // Each file gets its own database, so files run in parallel safely.
    fileParallelism: true,
    reporters: ['default', './test/summary-reporter.ts'],
    // expect.poll waits bound how long a test waits for something to happen, never how fast it happens: the
    // default (1 s) would be a speed assertion on a busy machine. A poll that needs longer says so itself.
    expect: { poll: { timeout: 10_000 } },
  },
});
