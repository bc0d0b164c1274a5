import { z } from 'zod';
import type { CoreDeps } from '../context.js';
import { defineJob, type JobDefinition } from './define-job.js';

/**
 * A periodic housekeeping job (clean-ups, token upkeep): no data, one run at a time, a failure tried
 * again a minute later. The housekeeping job runs it (src/core/jobs/housekeeping.ts); PERIODIC_JOBS in
 * src/app/jobs.ts says how often.
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
