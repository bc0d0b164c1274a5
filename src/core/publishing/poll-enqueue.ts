import type { CoreDeps } from '../context.js';
import { attemptId, recordAttempt } from './attempts.js';
import { pollStatusHandle, type PollStatusData } from './job-handles.js';
import { pollDelayMs, publishingSettings } from './settings.js';

/** The attempt lease that covers the wait before poll `polls + 1` and that poll itself. */
export function pollingLeaseMs(polls: number): number {
  return pollDelayMs(polls, publishingSettings.pollMaxDelayMs) + publishingSettings.attemptLeaseMs;
}

/** A poll step to enqueue; the counters default to a new chain's first step. */
export interface PollStep {
  postId: string;
  attempt: number;
  publishId: string;
  kind: string;
  handle: string | null;
  startedAt: Date;
  polls?: number;
  completedAt?: Date | null;
  lastStatus?: string | null;
}

/**
 * Enqueues the next `posts.poll-status` after the backoff (10 s doubling to 60 s; to 15 min while only the
 * post id is awaited). While the post is PUBLISHING the attempt's lease is renewed over the wait, so the
 * sweeper knows the polling is alive (`leaseWritten`: the caller already wrote `pollingLeaseMs` with its own write).
 */
export async function enqueuePoll(
  deps: CoreDeps,
  step: PollStep,
  options: { leaseWritten?: boolean } = {},
): Promise<void> {
  const polls = step.polls ?? 0;
  const completedAt = step.completedAt ?? null;
  const settings = publishingSettings;
  const delay = pollDelayMs(polls, completedAt ? settings.idPollMaxDelayMs : settings.pollMaxDelayMs);
  if (!completedAt && !options.leaseWritten) {
    await recordAttempt(deps, { _id: attemptId(step.postId, step.attempt) }, { leaseMs: pollingLeaseMs(polls) });
  }
  const data: PollStatusData = {
    postId: step.postId,
    attempt: step.attempt,
    publishId: step.publishId,
    polls,
    kind: step.kind,
    handle: step.handle,
    startedAt: step.startedAt.toISOString(),
    completedAt: completedAt?.toISOString() ?? null,
    lastStatus: step.lastStatus ?? null,
  };
  await deps.jobs.enqueue(pollStatusHandle, data, { runAt: new Date(deps.now().getTime() + delay) });
}
