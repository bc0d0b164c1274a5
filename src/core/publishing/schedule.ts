import type { CoreDeps } from '../context.js';
import type { PostDoc } from '../posts/documents.js';
import { publishPostHandle } from './job-handles.js';

/**
 * Puts a queued post on the engine's queue: a `posts.publish` job at its dueAt (now when due already).
 * Enqueueing twice is harmless: the job claims the post, so only one run publishes.
 */
export async function enqueuePostPublish(deps: CoreDeps, post: Pick<PostDoc, '_id' | 'dueAt'>): Promise<void> {
  const now = deps.now();
  const runAt = post.dueAt && post.dueAt.getTime() > now.getTime() ? post.dueAt : now;
  await deps.jobs.enqueue(publishPostHandle, { postId: post._id }, { runAt });
}
