import { recordAudit } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import type { PostDoc } from './documents.js';
import { providerOfPlatform } from '../platforms/provider-of.js';
import { createdNothing } from '../publishing/documents.js';
import { AppError } from '../errors.js';
import { forgetPostInsights } from '../insights/forget.js';
import { findWorkspacePost, loadGroup } from './find-post.js';
import { refundPostCap } from './post-cap.js';
import { withPostLeases } from './post-lease.js';

/**
 * Delete a post: the whole group with its attempt history and insights (our records only: a post
 * already on TikTok stays there). Refused with 409 while any of it is being published. A queued root that
 * TikTok certainly never got (no attempt, or only attempts that created nothing) gets its cap unit back.
 * A rejection (a card's Reject) deletes only a draft and is audited as `post.rejected`, else `post.deleted`.
 */
export async function deletePostGroup(
  deps: CoreDeps,
  scope: Scope,
  postId: string,
  options: { rejection?: boolean } = {},
): Promise<void> {
  const post = await findWorkspacePost(deps, scope, postId);
  const before = await loadGroup(deps, scope, post.groupId);
  const ids = [before.root._id, ...before.children.map((child) => child._id)];
  const deleted = await withPostLeases(deps, ids, async () => {
    // Reread under the leases: the engine may have claimed a post in between.
    const group = await loadGroup(deps, scope, post.groupId);
    const all = [group.root, ...group.children];
    // A rejection in chat must not delete what another approver queued a moment before.
    if (options.rejection && group.root.state !== 'DRAFT') {
      throw new AppError('not_a_draft', `Only a draft can be rejected; this post is ${group.root.state}.`);
    }
    if (all.some((each) => each.state === 'PUBLISHING')) {
      throw new AppError(
        'conflict',
        'The post is being published right now; try again when it has finished (it then shows PUBLISHED or ERROR).',
      );
    }
    const refund = group.root.state === 'QUEUE' && (await createdNothingYet(deps, group.root));
    const allIds = all.map((each) => each._id);
    await deps.db.posts.deleteMany({ _id: { $in: allIds }, workspaceId: scope.workspaceId });
    await deps.db.publishAttempts.deleteMany({ postId: { $in: allIds } });
    await forgetPostInsights(deps, scope.workspaceId, allIds);
    if (refund) await refundPostCap(deps, group.root);
    return { state: group.root.state, posts: allIds.length };
  });
  const provider = await providerOfPlatform(deps, scope.workspaceId, post.platformId);
  await recordAudit(deps, scope, {
    action: options.rejection ? 'post.rejected' : 'post.deleted',
    subject: { type: 'post', id: postId },
    details: options.rejection ? { provider } : { provider, ...deleted },
  });
}

/** True when no attempt of `post` can have left anything at the network. */
async function createdNothingYet(deps: CoreDeps, post: PostDoc): Promise<boolean> {
  const attempts = await deps.db.publishAttempts.find({ postId: post._id }).toArray();
  return attempts.every((attempt) => createdNothing(attempt.phase));
}
