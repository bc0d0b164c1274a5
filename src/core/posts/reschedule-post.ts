import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';
import { findRootForChange, findWorkspacePost, loadGroup } from './find-post.js';
import { withPostLeases } from './post-lease.js';
import { enqueueOrLeaveToSweep } from './queue-post.js';
import { futureTime } from './times.js';
import type { ReschedulePostInput } from './schema.js';
import { renderGroup, type PostGroupView } from './view.js';

/**
 * Reschedule: moves a DRAFT or a QUEUE root (not yet taken by the engine) to a
 * future time; a queued post gets a publish job for the new time (the one for the old time finds
 * the post not due and does nothing). Anything else is 409 conflict.
 */
export async function reschedulePost(deps: CoreDeps, scope: Scope, input: ReschedulePostInput): Promise<PostGroupView> {
  const root = await findRootForChange(deps, scope, input.id, 'Reschedule');
  const now = deps.now();
  const at = futureTime(input.scheduledFor, now, ['scheduledFor']);
  await withPostLeases(deps, [root._id], async () => {
    const current = await findWorkspacePost(deps, scope, root._id);
    if (current.state !== 'DRAFT' && current.state !== 'QUEUE') {
      throw new AppError(
        'conflict',
        `Only a draft or a queued post can be rescheduled; this post is ${current.state}${
          current.state === 'PUBLISHING' ? ' (being published right now)' : ''
        }.`,
      );
    }
    const queued = current.state === 'QUEUE';
    const changes = { scheduledFor: at, updatedAt: now, ...(queued ? { dueAt: at } : {}) };
    await deps.db.posts.updateOne({ _id: current._id }, { $set: changes });
    if (queued) await enqueueOrLeaveToSweep(deps, { ...current, ...changes });
  });
  return renderGroup(deps, await loadGroup(deps, scope, root.groupId));
}
