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
/** Outbound tasks (sends to slow receivers) hold until the gate opens. */
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (openGate = resolve));
const outboundJob = defineJob({
  name: 'test.outbound',
  data,
  queue: 'due-tasks',
  priority: 'outbound',
  perform: async ({ task }) => {
    order.push(task);
    await gate;
  },
});

let t: TestDatabase;
let runner: JobRunner;

beforeAll(async () => {
  t = await openTestDatabase();
  runner = createJobRunner({
    db: t.db,
    deps: t.deps,
    definitions: [publishJob, normalJob, reportJob, outboundJob],
    pollIntervalMs: 100,
    concurrency: 1,
  });
  await runner.startProcessing();
});

afterAll(async () => {
  openGate();
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
    // Its own database and a lane not yet processing: every task is in place before any is looked at,
    // however slow the inserts are, so the claim order is the priority rule alone.
    const own = await openTestDatabase();
    const idle = createJobRunner({
      db: own.db,
      deps: own.deps,
      definitions: [publishJob, normalJob, reportJob],
      pollIntervalMs: 100,
      concurrency: 1,
    });
    try {
      order.length = 0;
      const due = new Date();
      for (let i = 0; i < 30; i++) await idle.enqueue(reportJob, { task: `report-${i}`, holdMs: 0 }, { runAt: due });
      await idle.enqueue(normalJob, { task: 'normal', holdMs: 0 }, { runAt: due });
      await idle.enqueue(publishJob, { task: 'publish', holdMs: 0 }, { runAt: due });
      await idle.startProcessing();
      await until(() => order.length === 32);
      expect(order[0]).toBe('publish');
      expect(order[1]).toBe('normal');
      expect(order.slice(2).every((task) => task.startsWith('report-'))).toBe(true);
    } finally {
      await idle.stop(2_000);
      await own.close();
    }
  });

  it('takes a publish that falls due while reporting work queues ahead of every waiting report', async () => {
    order.length = 0;
    const due = new Date(Date.now() + 4_000);
    // Each report holds the only slot a while, so the publish falls due while reports still wait.
    for (let i = 0; i < 10; i++) await runner.enqueue(reportJob, { task: `report-${i}`, holdMs: 300 }, { runAt: due });
    // Due 1.5 s after them: reports start until it is within a second, then give way to it.
    await runner.enqueue(publishJob, { task: 'publish', holdMs: 0 }, { runAt: new Date(due.getTime() + 1_500) });
    await until(() => order.length === 11);
    const at = order.indexOf('publish');
    // Only reports started before it fell due go first (at 300 ms each, at most five started in its 1.5 s
    // and one may still hold the slot), never the ones still waiting; how many depends on the machine.
    expect(at).toBeLessThanOrEqual(6);
  });
});

describe('outbound work has a pool of its own', () => {
  it('runs a report and a normal task while every shared slot could be held by stuck sends', async () => {
    const due = new Date(Date.now() + 1_500);
    for (let i = 0; i < 3; i++) await runner.enqueue(outboundJob, { task: `send-${i}`, holdMs: 0 }, { runAt: due });
    await until(() => ['send-0', 'send-1', 'send-2'].every((task) => order.includes(task)));
    // The one shared slot is free although three sends never end: the report and the task run.
    await runner.enqueue(reportJob, { task: 'report-beside-sends', holdMs: 0 }, { runAt: new Date() });
    await runner.enqueue(normalJob, { task: 'normal-beside-sends', holdMs: 0 }, { runAt: new Date() });
    await until(() => order.includes('report-beside-sends') && order.includes('normal-beside-sends'));
  });
});

describe('work that only reports gives way to publishing', () => {
  const times = new Map<string, number>();
  const timedData = z.object({ task: z.string(), holdMs: z.number().int() });
  const timed = async ({ task, holdMs }: z.infer<typeof timedData>) => {
    times.set(`${task} start`, Date.now());
    await sleep(holdMs);
    times.set(`${task} end`, Date.now());
  };
  const publish = defineJob({
    name: 'test.timed-publish',
    data: timedData,
    queue: 'due-tasks',
    priority: 'publishing',
    perform: timed,
  });
  const report = defineJob({
    name: 'test.timed-report',
    data: timedData,
    queue: 'due-tasks',
    priority: 'reporting',
    perform: timed,
  });
  let u: TestDatabase;
  let wide: JobRunner;

  beforeAll(async () => {
    u = await openTestDatabase();
    // Four slots: a report could run beside the publish, so only the rule keeps it back.
    wide = createJobRunner({
      db: u.db,
      deps: u.deps,
      definitions: [publish, report],
      pollIntervalMs: 100,
      concurrency: 4,
    });
    await wide.startProcessing();
  });
  afterAll(async () => {
    await wide?.stop(5_000);
    await u?.close();
  });

  async function seen(key: string): Promise<number> {
    await until(() => times.has(key));
    return times.get(key)!;
  }

  it('starts no report while a publish runs, then runs them all', async () => {
    const due = new Date(Date.now() + 4_000);
    await wide.enqueue(publish, { task: 'publish-a', holdMs: 1_500 }, { runAt: due });
    for (let i = 0; i < 3; i++) {
      await wide.enqueue(report, { task: `report-a${i}`, holdMs: 0 }, { runAt: new Date(due.getTime() + 100) });
    }
    const publishEnd = await seen('publish-a end');
    for (let i = 0; i < 3; i++) expect(await seen(`report-a${i} start`)).toBeGreaterThanOrEqual(publishEnd);
  });

  it('holds afterPublishing work while a publish runs, and runs it at once when none is near', async () => {
    await wide.enqueue(publish, { task: 'publish-b', holdMs: 1_500 }, { runAt: new Date(Date.now() + 2_000) });
    await wide.enqueue(publish, { task: 'publish-far', holdMs: 0 }, { runAt: new Date(Date.now() + 60_000) });
    await seen('publish-b start');
    const held = await wide.afterPublishing(() => Promise.resolve(Date.now()));
    expect(held).toBeGreaterThanOrEqual(await seen('publish-b end'));
    // Only a publish a minute away is known now: the work does not wait for it.
    await wide.afterPublishing(() => Promise.resolve(times.set('idle work', Date.now())));
    expect(times.has('idle work')).toBe(true);
    expect(times.has('publish-far start')).toBe(false);
  });

  it('lets held work finish before stop() returns', async () => {
    await wide.enqueue(publish, { task: 'publish-c', holdMs: 1_000 }, { runAt: new Date(Date.now() + 2_000) });
    await seen('publish-c start');
    let wrote = false;
    void wide.afterPublishing(async () => {
      await sleep(200);
      wrote = true;
    });
    await wide.stop(10_000);
    expect(wrote).toBe(true);
    expect(times.has('publish-c end')).toBe(true);
  });
});
