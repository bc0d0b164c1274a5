import { describe, expect, it } from 'vitest';
import { benchWorkDir, openBenchDatabase } from '../../bench/support/cluster.js';
import { runScale } from '../../bench/support/scale-run.js';

// bench:scale in small (npm run bench:scale has the full run and its timings): nginx over one API process
// and one worker, then over two of each with SIGTERM and SIGKILL restarts, under the mixed load. Only the
// correctness checks are asserted: no 5xx but the proxy's for a gone process, posts published exactly
// once, every webhook event delivered and verified, no job stuck, both workers publishing (the posts
// offered once both restarted workers are seen taking jobs). None of these depends on the length of the
// load, so each phase has 15 s of it with posts due 3-12 s ahead (the bench runs 180 s). It has a
// database server of its own (unless MONGODB_URI is set): FerretDB runs one query after another, and
// this load on the shared one held back the other files' queries for minutes.
describe('scale-out behind nginx', () => {
  it('passes every check of the bench with restarts under a mixed load', { timeout: 1_500_000 }, async () => {
    const work = benchWorkDir('scale-test');
    const database = await openBenchDatabase(work.dir);
    try {
      const problems = await runScale({
        database,
        workDir: work.dir,
        accounts: 12,
        settleTimeoutMs: 8 * 60_000,
        load: {
          seconds: 15,
          clients: 3,
          thinkMs: 100,
          scheduleEveryMs: 2_500,
          leadMs: [3_000, 12_000],
          generationEveryMs: 7_500,
          approveEvery: 5,
        },
      });
      expect(problems).toEqual([]);
    } finally {
      await database.stop();
      work.remove();
    }
  });
});
