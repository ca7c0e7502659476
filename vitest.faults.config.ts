// npm run test:faults: the fault scenarios (test/faults/), one after another — they start real processes and
// some restart their own PostgreSQL, so they do not share the machine with each other. The fast ones
// (*.test.ts) also run in `npm test`; the slow ones (*.faults.ts) only here.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts', 'test/faults/**/*.faults.ts', 'test/mail/smtp/kill.test.ts', 'test/jobs/engine/crash.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/summary-reporter.ts'],
    // expect.poll waits bound how long a test waits for something to happen, never how fast it happens: the
    // default (1 s) would be a speed assertion on a busy machine. A poll that needs longer says so itself.
    expect: { poll: { timeout: 10_000 } },
  },
});
