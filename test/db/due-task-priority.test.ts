import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob } from '../../src/core/jobs/define-job.js';
import { createJobRunner, type JobRunner } from '../../src/core/jobs/job-runner.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';

// The claim order of the due-task lane: one worker with one slot, so every claim is a choice.
const order: string[] = [];

const data = z.object({ task: z.string(), holdMs: z.number().int().default(0) });
const perform = async ({ task, holdMs }: z.infer<typeof data>) => {
  order.push(task);
  await sleep(holdMs);
};
const publishJob = defineJob({ name: 'test.publish', data, queue: 'due-tasks', priority: 'publishing', perform });
const normalJob = defineJob({ name: 'test.normal', data, queue: 'due-tasks', perform });
const reportJob = defineJob({ name: 'test.report', data, queue: 'due-tasks', priority: 'reporting', perform });

let t: TestDatabase;
let runner: JobRunner;

beforeAll(async () => {
  t = await openTestDatabase();
  runner = createJobRunner({
    db: t.db,
    deps: t.deps,
    definitions: [publishJob, normalJob, reportJob],
    pollIntervalMs: 100,
    concurrency: 1,
  });
  await runner.startProcessing();
});

afterAll(async () => {
  await runner.stop(2_000);
  await t.close();
});

async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out; ran so far: ${order.join(', ')}`);
    await sleep(25);
  }
}

describe('the due-task lane claims by priority', () => {
  it('claims a due publish before 30 reporting tasks and a normal task due the same moment, enqueued before it', async () => {
    order.length = 0;
    // Far enough ahead that the lane has seen every task before they fall due (inserts are slow on a busy machine).
    const due = new Date(Date.now() + 4_000);
    for (let i = 0; i < 30; i++) await runner.enqueue(reportJob, { task: `report-${i}`, holdMs: 0 }, { runAt: due });
    await runner.enqueue(normalJob, { task: 'normal', holdMs: 0 }, { runAt: due });
    await runner.enqueue(publishJob, { task: 'publish', holdMs: 0 }, { runAt: due });
    await until(() => order.length === 32);
    expect(order[0]).toBe('publish');
    expect(order[1]).toBe('normal');
    expect(order.slice(2).every((task) => task.startsWith('report-'))).toBe(true);
  });

  it('takes a publish that falls due while reporting work queues ahead of every waiting report', async () => {
    order.length = 0;
    const due = new Date(Date.now() + 4_000);
    // Each report holds the only slot a while, so the publish falls due while reports still wait.
    for (let i = 0; i < 10; i++) await runner.enqueue(reportJob, { task: `report-${i}`, holdMs: 300 }, { runAt: due });
    await runner.enqueue(publishJob, { task: 'publish', holdMs: 0 }, { runAt: new Date(due.getTime() + 500) });
    await until(() => order.length === 11);
    const at = order.indexOf('publish');
    // The publish waits for the report holding the slot when it fell due, never for the ones still waiting.
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThanOrEqual(3);
  });
});
