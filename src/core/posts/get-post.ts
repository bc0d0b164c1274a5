import type { CoreDeps, Scope } from '../context.js';
import { findWorkspacePost, loadGroup } from './find-post.js';
import { renderGroup, type PostGroupView } from './view.js';

/** Get a post: the group the post belongs to; a reply's id answers its whole group too. */
export async function getPostGroup(deps: CoreDeps, scope: Scope, postId: string): Promise<PostGroupView> {
  const post = await findWorkspacePost(deps, scope, postId);
  return renderGroup(deps, await loadGroup(deps, scope, post.groupId));
}
