import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_DEFINITIONS, PERIODIC_JOBS, RECURRING_JOBS } from '../../src/app/jobs.js';
import type { CoreDeps } from '../../src/core/context.js';
import type { JobContext } from '../../src/core/jobs/define-job.js';
import { defineHousekeepingJob } from '../../src/core/jobs/housekeeping.js';
import { createJobRunner } from '../../src/core/jobs/job-runner.js';
import { definePeriodicJob } from '../../src/core/jobs/periodic-job.js';
import { waitFor } from '../publishing/support.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

const T0 = Date.parse('2026-11-25T12:00:00Z');

describe('the housekeeping job', () => {
  it('runs each periodic job once its period has passed since its last run, and not before', async () => {
    const runs: string[] = [];
    const often = definePeriodicJob('test.often', () => Promise.resolve(void runs.push('often')));
    const hourly = definePeriodicJob('test.hourly', () => Promise.resolve(void runs.push('hourly')));
    const housekeeping = defineHousekeepingJob([
      { definition: often, everyMs: 15_000 },
      { definition: hourly, everyMs: 60 * 60_000 },
    ]);
    const at = async (ms: number) => {
      runs.length = 0;
      await housekeeping.perform({}, contextAt(T0 + ms));
      return [...runs];
    };
    expect(await at(0)).toEqual(['often', 'hourly']);
    expect(await at(10_000)).toEqual([]);
    expect(await at(16_000)).toEqual(['often']);
    expect(await at(60 * 60_000 + 1)).toEqual(['often', 'hourly']);
  });

  it('logs a failing job, runs the others, and tries it again a minute later', async () => {
    let failures = 0;
    let steadyRuns = 0;
    const failing = definePeriodicJob('test.failing', () => {
      failures += 1;
      return Promise.reject(new Error('the disk is gone'));
    });
    const steady = definePeriodicJob('test.steady', () => Promise.resolve(void (steadyRuns += 1)));
    const housekeeping = defineHousekeepingJob([
      { definition: failing, everyMs: 60 * 60_000 },
      { definition: steady, everyMs: 15_000 },
    ]);
    await housekeeping.perform({}, contextAt(T0));
    expect({ failures, steadyRuns }).toEqual({ failures: 1, steadyRuns: 1 });
    await housekeeping.perform({}, contextAt(T0 + 30_000));
    expect({ failures, steadyRuns }).toEqual({ failures: 1, steadyRuns: 2 });
    await housekeeping.perform({}, contextAt(T0 + 61_000));
    expect({ failures, steadyRuns }).toEqual({ failures: 2, steadyRuns: 3 });
  });

  it('is the one Agenda name for every periodic job, and a worker runs them all', async () => {
    const names = JOB_DEFINITIONS.map((definition) => definition.name);
    for (const { definition } of PERIODIC_JOBS) expect(names).not.toContain(definition.name);
    expect(RECURRING_JOBS.map((job) => job.definition.name).sort()).toEqual(['housekeeping', 'posts.sweep']);

    const u = await openTestDatabase();
    const runner = createJobRunner({
      db: u.db,
      deps: u.deps,
      definitions: JOB_DEFINITIONS,
      recurring: RECURRING_JOBS,
      pollIntervalMs: 100,
      concurrency: 5,
    });
    try {
      await runner.startProcessing();
      const ran = await waitFor('every periodic job to run', async () => {
        const docs = await u.deps.db.periodicRuns.find({}).toArray();
        return docs.length === PERIODIC_JOBS.length ? docs : undefined;
      });
      expect(ran.map((doc) => doc._id).sort()).toEqual(PERIODIC_JOBS.map((job) => job.definition.name).sort());
    } finally {
      await runner.stop(10_000);
      await u.close();
    }
  });
});

/** A job context whose clock reads `ms`. */
function contextAt(ms: number): JobContext {
  const deps: CoreDeps = { ...t.deps, now: () => new Date(ms) };
  return { deps, jobId: 'housekeeping-test', attempt: 1, touch: () => Promise.resolve() };
}
