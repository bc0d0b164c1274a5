import type { CoreDeps, Scope } from '../context.js';
import type { PostDoc } from './documents.js';
import { AppError, notFound } from '../errors.js';
import { splitGroup } from './view.js';

/**
 * A post of the scope's workspace by its id, or by its group's id, which stands for the group's root
 * (so a generation job's `postGroupId` opens like a post id); another workspace's id is `not_found`
 * like an unknown one. Post and group ids are random uuids, so one never names both.
 */
export async function findWorkspacePost(deps: CoreDeps, scope: Scope, id: string): Promise<PostDoc> {
  const doc =
    (await deps.db.posts.findOne({ _id: id })) ??
    (await deps.db.posts.findOne({ groupId: id, workspaceId: scope.workspaceId, parentPostId: null }));
  if (!doc || doc.workspaceId !== scope.workspaceId) throw notFound('Post');
  return doc;
}

/** Every post of a group: its root and its replies. A group without its root counts as gone. */
export async function loadGroup(
  deps: CoreDeps,
  scope: Scope,
  groupId: string,
): Promise<{ root: PostDoc; children: PostDoc[] }> {
  const group = splitGroup(await deps.db.posts.find({ groupId, workspaceId: scope.workspaceId }).toArray());
  if (!group) throw notFound('Post');
  return group;
}

/** The root a state change acts on; a thread reply follows its root and is never moved alone. */
export async function findRootForChange(
  deps: CoreDeps,
  scope: Scope,
  postId: string,
  action: string,
): Promise<PostDoc> {
  const doc = await findWorkspacePost(deps, scope, postId);
  if (doc.parentPostId !== null) {
    throw new AppError(
      'conflict',
      `This post is a thread reply; it follows its root post. ${action} the root post ${doc.parentPostId} instead.`,
    );
  }
  return doc;
}
