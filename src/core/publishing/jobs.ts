import { defineJob } from '../jobs/define-job.js';
import { publishPostHandle, pollStatusHandle, sweepPostsHandle } from './job-handles.js';
import { performPollStatus } from './poll-status.js';
import { performPublish } from './publish.js';
import { performSweep } from './sweep.js';

/** Publishes one due post: claims it, sends the init, uploads, then hands over to status polling. */
export const publishPostJob = defineJob({
  ...publishPostHandle,
  // Every run re-checks the claims, so a retry after a crash is safe.
  retry: { maxRetries: 3, delayMs: 5_000, maxDelayMs: 60_000 },
  perform: performPublish,
});

/** Asks TikTok how a sent post is doing and settles the post when TikTok does. */
export const pollStatusJob = defineJob({
  ...pollStatusHandle,
  retry: { maxRetries: 5, delayMs: 5_000, maxDelayMs: 60_000 },
  perform: performPollStatus,
});

/** Finds posts whose job got lost or whose worker died and moves them on. */
export const sweepPostsJob = defineJob({
  ...sweepPostsHandle,
  retry: { maxRetries: 0, delayMs: 1_000, maxDelayMs: 1_000 },
  lockLifetimeMs: 2 * 60_000,
  concurrency: 1,
  perform: (_data, context) => performSweep(context),
});
