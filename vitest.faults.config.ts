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
  },
});
