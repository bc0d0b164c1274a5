import { setInterval } from 'node:timers';
import { toAppError } from '../../errors.js';
import { defineJob } from '../../jobs/define-job.js';
import { JobWriter } from './job-writer.js';
import { generateSlideshowJob } from './job-handle.js';
import { failJob, runGeneration } from './run-generation.js';

/** A killed worker's job is free for another after this long; the runner renews the lock meanwhile. */
const LOCK_MS = 30_000;
const RETRY = { maxRetries: 3, delayMs: 5_000, maxDelayMs: 60_000 };

/** Performs generation jobs; an unexpected error is retried (the run resumes), the last one ends FAILED. */
export const generateSlideshowDefinition = defineJob({
  ...generateSlideshowJob,
  lockLifetimeMs: LOCK_MS,
  retry: RETRY,
  concurrency: 4,
  async perform({ jobId }, context) {
    const heartbeat = setInterval(() => void context.touch().catch(() => undefined), LOCK_MS / 3);
    try {
      await runGeneration(context.deps, jobId);
    } catch (error) {
      if (context.attempt <= RETRY.maxRetries) throw error;
      const failure = toAppError(error, context.deps.logger, 'slideshow generation', {
        jobId,
        attempt: context.attempt,
      });
      const job = await context.deps.db.generationJobs.findOne({ _id: jobId });
      if (job) await failJob(context.deps, new JobWriter(context.deps, job), failure, null);
    } finally {
      clearInterval(heartbeat);
    }
  },
});
