import { z } from 'zod';
import { defineJob } from '../jobs/define-job.js';
import { performPollStatus } from './poll-status.js';
import { performPublish } from './publish.js';
import { performSweep } from './sweep.js';

// The performs are called through arrows: schedule.ts → jobs.ts → publish.ts → schedule.ts is a cycle,
// harmless because no import is used while the modules load.

/** Publishes one due post: claims it, sends the init, uploads, then hands over to status polling. */
export const publishPostJob = defineJob({
  name: 'posts.publish',
  data: z.object({ postId: z.string().min(1) }),
  // Every run re-checks the claims, so a retry after a crash is safe.
  retry: { maxRetries: 3, delayMs: 5_000, maxDelayMs: 60_000 },
  // Many at once, each due at an exact time: the due-task lane, not Agenda (see due-tasks.ts).
  queue: 'due-tasks',
  perform: (data, context) => performPublish(data, context),
});

export const pollStatusData = z.object({
  postId: z.string().min(1),
  /** The attempt (n) whose publish is polled. */
  attempt: z.number().int().min(1),
  publishId: z.string().min(1),
  /** Polls made so far in this chain (the backoff grows with it). */
  polls: z.number().int().min(0),
  kind: z.enum(['video', 'photo']),
  /** The account's handle, for the release URL. */
  handle: z.string().nullable(),
  /** When the attempt was claimed (ISO): the limit for a final status counts from here. */
  startedAt: z.iso.datetime(),
  /** When PUBLISH_COMPLETE came without a post id (ISO): the id search counts from here. */
  completedAt: z.iso.datetime().nullable(),
  /** The status the previous poll saw, so only changes are recorded as events. */
  lastStatus: z.string().nullable(),
});
export type PollStatusData = z.infer<typeof pollStatusData>;

/** Asks TikTok how a sent post is doing and settles the post when TikTok does. */
export const pollStatusJob = defineJob({
  name: 'posts.poll-status',
  data: pollStatusData,
  retry: { maxRetries: 5, delayMs: 5_000, maxDelayMs: 60_000 },
  queue: 'due-tasks',
  perform: (data, context) => performPollStatus(data, context),
});

/** Finds posts whose job got lost or whose worker died and moves them on. */
export const sweepPostsJob = defineJob({
  name: 'posts.sweep',
  data: z.object({}).passthrough(),
  retry: { maxRetries: 0, delayMs: 1_000, maxDelayMs: 1_000 },
  lockLifetimeMs: 2 * 60_000,
  concurrency: 1,
  perform: (_data, context) => performSweep(context),
});
