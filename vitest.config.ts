import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './test/support/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Each file gets its own database; two workers match the machine's two cores.
    pool: 'forks',
    maxWorkers: 2,
    // Deadlines against hangs, not speed checks: a test that takes 20 s on a quiet machine still
    // finishes on one four times busier (tests wait for conditions with deadlines of their own).
    testTimeout: 120_000,
    hookTimeout: 300_000,
    sequence: { sequencer: LongFirstSequencer },
  },
});
