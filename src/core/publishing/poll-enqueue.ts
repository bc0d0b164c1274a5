import type { CoreDeps } from '../context.js';
import { attemptId, recordAttempt } from './attempts.js';
import { pollStatusJob, type PollStatusData } from './jobs.js';
import { pollDelayMs, publishingSettings } from './settings.js';

/** A poll step to enqueue; the counters default to a new chain's first step. */
export interface PollStep {
  postId: string;
  attempt: number;
  publishId: string;
  kind: 'video' | 'photo';
  handle: string | null;
  startedAt: Date;
  chain: string;
  polls?: number;
  completedAt?: Date | null;
  lastStatus?: string | null;
}

/**
 * Enqueues the next `posts.poll-status` after the backoff (10 s doubling to 60 s; to 15 min while only the
 * post id is awaited). While the post is PUBLISHING the attempt's lease is renewed over the wait, so the
 * sweeper knows the polling is alive.
 */
export async function enqueuePoll(deps: CoreDeps, step: PollStep): Promise<void> {
  const polls = step.polls ?? 0;
  const completedAt = step.completedAt ?? null;
  const settings = publishingSettings;
  const delay = pollDelayMs(polls, completedAt ? settings.idPollMaxDelayMs : settings.pollMaxDelayMs);
  if (!completedAt) {
    await recordAttempt(
      deps,
      { _id: attemptId(step.postId, step.attempt) },
      { leaseMs: delay + settings.attemptLeaseMs },
    );
  }
  const data: PollStatusData = {
    postId: step.postId,
    attempt: step.attempt,
    publishId: step.publishId,
    polls,
    chain: step.chain,
    kind: step.kind,
    handle: step.handle,
    startedAt: step.startedAt.toISOString(),
    completedAt: completedAt?.toISOString() ?? null,
    lastStatus: step.lastStatus ?? null,
  };
  await deps.jobs.enqueue(pollStatusJob, data, { runAt: new Date(deps.now().getTime() + delay) });
}
