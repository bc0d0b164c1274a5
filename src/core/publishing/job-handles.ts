import { z } from 'zod';
import { defineJobHandle } from '../jobs/job-handle.js';

// Enqueueing code (schedule, polls, sweep) imports these handles; jobs.ts binds the work to them.

/** Publishes one due post. Many at once, each due at an exact time: the due-task lane, not Agenda. */
export const publishPostHandle = defineJobHandle({
  name: 'posts.publish',
  data: z.object({ postId: z.string().min(1) }),
  queue: 'due-tasks',
  priority: 'publishing',
});

export const pollStatusData = z.object({
  postId: z.string().min(1),
  /** The attempt (n) whose publish is polled. */
  attempt: z.number().int().min(1),
  publishId: z.string().min(1),
  /** Polls made so far in this chain (the backoff grows with it). */
  polls: z.number().int().min(0),
  /** The provider's post kind (TikTok: video or photo), for its release URL. */
  kind: z.string().min(1),
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

/** One status poll of a sent post. */
export const pollStatusHandle = defineJobHandle({
  name: 'posts.poll-status',
  data: pollStatusData,
  queue: 'due-tasks',
  priority: 'publishing',
});

/** The periodic sweep for lost jobs and dead workers. */
export const sweepPostsHandle = defineJobHandle({ name: 'posts.sweep', data: z.object({}).passthrough() });
