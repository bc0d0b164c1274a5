import type { z } from 'zod';

/**
 * What enqueueing a job needs: its name, the schema its data must pass and where it is stored.
 * Code that enqueues imports handles only; the performer binds its `perform` to the handle with
 * `defineJob`, so enqueueing never pulls in the work (and its imports) it schedules.
 */
export interface JobHandle<Data> {
  readonly name: string;
  readonly data: z.ZodType<Data>;
  /**
   * Where the job is stored: Agenda (default; recurring and occasional jobs), or the due-task lane
   * for numerous short jobs due at exact times (publishing), see src/core/jobs/due-tasks.ts.
   */
  readonly queue: 'agenda' | 'due-tasks';
  /**
   * Which due tasks a due-task lane claims first: `publishing` (a post's publish and status polls)
   * before `normal`, and `reporting` (work that only tells someone, like event delivery) only while
   * no other task waits, a few at a time, so it never holds a due post back. `outbound` (sending to
   * someone else's server: webhooks) waits for publishing as `reporting` does, but runs in a pool of
   * its own, so a slow receiver never takes a slot from posts or from event delivery.
   */
  readonly priority: JobPriority;
}

export type JobPriority = 'publishing' | 'normal' | 'reporting' | 'outbound';

/** Declares a job handle; Agenda keeps the job unless `queue` says otherwise. */
export function defineJobHandle<Data>(
  handle: Pick<JobHandle<Data>, 'name' | 'data'> & Partial<JobHandle<Data>>,
): JobHandle<Data> {
  return Object.freeze({ queue: 'agenda' as const, priority: 'normal' as const, ...handle });
}
