import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob } from '../../src/core/jobs/define-job.js';
import { createJobRunner, type JobRunner } from '../../src/core/jobs/job-runner.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';

// The due-task lane of the job runner, with two runners (two workers) on one real database.
const runs: { task: string; runner: string; at: number }[] = [];
const failures = new Map<string, number>();

const recordJob = defineJob({
  name: 'test.record',
  data: z.object({ task: z.string(), failTimes: z.number().int().default(0), holdMs: z.number().int().default(0) }),
  retry: { maxRetries: 2, delayMs: 50, maxDelayMs: 200 },
  queue: 'due-tasks',
  perform: async (data, context) => {
    const failed = failures.get(data.task) ?? 0;
    if (failed < data.failTimes) {
      failures.set(data.task, failed + 1);
      throw new Error(`planned failure ${failed + 1}`);
    }
    await sleep(data.holdMs);
    runs.push({
      task: data.task,
      runner: (context.deps.logger.bindings() as { runner: string }).runner,
      at: Date.now(),
    });
  },
});

let t: TestDatabase;
let runners: JobRunner[];

beforeAll(async () => {
  t = await openTestDatabase();
  runners = ['a', 'b'].map((runner) =>
    createJobRunner({
      db: t.db,
      deps: { ...t.deps, logger: t.deps.logger.child({ runner }) },
      definitions: [recordJob],
      pollIntervalMs: 100,
      concurrency: 4,
    }),
  );
  for (const runner of runners) await runner.startProcessing();
});

afterAll(async () => {
  for (const runner of runners) await runner.stop(2_000);
  await t.close();
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(25);
  }
}

function runsOf(prefix: string) {
  return runs.filter((run) => run.task.startsWith(prefix));
}

describe('the due-task lane', () => {
  it('runs each of 60 due tasks exactly once across two workers, both working, and deletes them', async () => {
    const due = new Date(Date.now() + 300);
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        runners[i % 2]!.enqueue(recordJob, { task: `many-${i}`, failTimes: 0, holdMs: 20 }, { runAt: due }),
      ),
    );
    await until(() => runsOf('many-').length >= 60, 45_000);
    await sleep(500);
    const done = runsOf('many-');
    expect(new Set(done.map((run) => run.task)).size).toBe(60);
    expect(done).toHaveLength(60);
    expect(new Set(done.map((run) => run.runner))).toEqual(new Set(['a', 'b']));
    expect(Math.min(...done.map((run) => run.at))).toBeGreaterThanOrEqual(due.getTime());
    await until(async () => (await t.deps.db.dueTasks.countDocuments({ done: false })) === 0);
  });

  it('runs a task at its time, not before', async () => {
    // How late it runs is measured in bench/; here only that it runs, once, and never early.
    const at = new Date(Date.now() + 1_200);
    await runners[0]!.enqueue(recordJob, { task: 'timed', failTimes: 0, holdMs: 0 }, { runAt: at });
    await until(() => runsOf('timed').length === 1);
    expect(runsOf('timed')[0]!.at).toBeGreaterThanOrEqual(at.getTime());
  });

  it('retries a failing task with backoff and runs it once it succeeds', async () => {
    await runners[0]!.enqueue(recordJob, { task: 'flaky', failTimes: 2, holdMs: 0 });
    await until(() => runsOf('flaky').length === 1);
    expect(failures.get('flaky')).toBe(2);
    // The task is marked done right after its perform returns.
    await until(async () => (await t.deps.db.dueTasks.countDocuments({ done: false })) === 0);
  });

  it('drops a task that keeps failing after the retries the definition allows', async () => {
    await runners[0]!.enqueue(recordJob, { task: 'broken', failTimes: 10, holdMs: 0 });
    await until(
      async () => failures.get('broken') === 3 && (await t.deps.db.dueTasks.countDocuments({ done: false })) === 0,
    );
    await sleep(600);
    expect(failures.get('broken')).toBe(3);
    expect(runsOf('broken')).toHaveLength(0);
  });

  it("takes over a task claimed by a worker that died, once the dead worker's claim lapses", async () => {
    const id = await runners[0]!.enqueue(
      recordJob,
      { task: 'orphan', failTimes: 0, holdMs: 0 },
      { runAt: new Date(Date.now() + 1_000) },
    );
    // Before it is due, a worker claims it and dies: its claim (a lease) runs out 2.5 s from now.
    const lapses = new Date(Date.now() + 2_500);
    await t.deps.db.leases.insertOne({
      _id: `task:${id}#0`,
      key: `task:${id}`,
      generation: 0,
      holder: 'dead-worker',
      expiresAt: lapses,
      releasedAt: null,
      createdAt: new Date(),
    });
    await until(() => runsOf('orphan').length === 1, 45_000);
    expect(runsOf('orphan')[0]!.at).toBeGreaterThanOrEqual(lapses.getTime());
    await sleep(300);
    expect(runsOf('orphan')).toHaveLength(1);
  });
});
