import type { CoreDeps } from '../context.js';
import type { PostDoc } from './documents.js';
import { enqueuePostPublish } from '../publishing/schedule.js';
import { logFailure } from '../db/unreachable.js';

/** Queues the publish job; when that fails the post stays QUEUE and the engine's sweep queues it. */
export async function enqueueOrLeaveToSweep(deps: CoreDeps, post: PostDoc): Promise<void> {
  try {
    await enqueuePostPublish(deps, post);
  } catch (error) {
    logFailure(deps.logger, 'warn', error, { postId: post._id }, 'could not queue the publish job; the sweep will');
  }
}
