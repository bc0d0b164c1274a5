import { z } from 'zod';
import type { CoreDeps } from '../context.js';
import { defineJob, type JobContext, type JobDefinition, type RecurringJob } from './define-job.js';
import { logFailure } from '../db/unreachable.js';

/** How often the housekeeping job looks for periodic jobs that are due: the shortest period it serves. */
export const HOUSEKEEPING_EVERY_MS = 15_000;

/**
 * One Agenda job for the periodic clean-ups and sweeps. Agenda asks the database for the next job of
 * every name it knows on each poll (every JOB_POLL_INTERVAL_MS), so a dozen periodic jobs under names
 * of their own cost a dozen queries every two seconds, beside the due posts; under one name they cost
 * one. Each job runs when its period has passed since its last run (`periodic_runs`, by name), one
 * at a time; a failure is logged and tried again after its definition's retry delay (a minute, from
 * definePeriodicJob), or at its period when that is shorter.
 */
export function defineHousekeepingJob(jobs: readonly RecurringJob[]): JobDefinition<object> {
  return defineJob({
    name: 'housekeeping',
    data: z.object({}),
    retry: { maxRetries: 0, delayMs: HOUSEKEEPING_EVERY_MS, maxDelayMs: HOUSEKEEPING_EVERY_MS },
    concurrency: 1,
    perform: async (_data, context) => {
      for (const job of jobs) await runIfDue(context, job);
    },
  });
}

async function runIfDue(context: JobContext, { definition, everyMs }: RecurringJob): Promise<void> {
  const { deps } = context;
  const last = await deps.db.periodicRuns.findOne({ _id: definition.name });
  const startedAt = deps.now();
  if (last && startedAt.getTime() - last.lastRunAt.getTime() < everyMs) return;
  try {
    await definition.perform({}, context);
    await markRun(deps, definition.name, startedAt);
  } catch (error) {
    const retryIn = Math.min(everyMs, definition.retry.delayMs);
    logFailure(deps.logger, 'warn', error, { job: definition.name, retryInMs: retryIn }, 'a periodic job failed');
    await markRun(deps, definition.name, new Date(startedAt.getTime() - everyMs + retryIn));
  }
}

async function markRun(deps: CoreDeps, name: string, lastRunAt: Date): Promise<void> {
  await deps.db.periodicRuns.updateOne({ _id: name }, { $set: { lastRunAt } }, { upsert: true });
}
