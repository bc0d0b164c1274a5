import { z } from 'zod';
import type { CoreDeps } from '../context.js';
import { defineJob, type JobDefinition } from './define-job.js';

/**
 * A periodic housekeeping job (clean-ups, token upkeep): no data, one run at a time, retried once a
 * minute later. The scheduler decides how often it runs (src/app/jobs.ts).
 */
export function definePeriodicJob(name: string, run: (deps: CoreDeps) => Promise<void>): JobDefinition<object> {
  return defineJob({
    name,
    data: z.object({}),
    retry: { maxRetries: 1, delayMs: 60_000, maxDelayMs: 60_000 },
    concurrency: 1,
    perform: (_data, { deps }) => run(deps),
  });
}
