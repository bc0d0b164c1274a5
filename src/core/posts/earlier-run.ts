import type { CoreDeps, Scope } from '../context.js';
import { AppError, isDuplicateKeyError } from '../errors.js';
import { derivedUuid } from '../ids.js';
import type { PostDoc } from './documents.js';
import { toPost, type PostGroupView } from './view.js';

/** The ids a platform's post group takes: derived ones when the call may be a repeat, else fresh ones. */
export interface GroupIds {
  rootId: string;
  groupId: string;
  /** The id of the reply at `index` of the request's thread. */
  replyId: (index: number) => string;
}

/**
 * Ids for one platform's group of a keyed request (derived from its seed, so the same request executed
 * again names the same posts), or undefined when the request carries no key.
 */
export function seededGroupIds(scope: Scope, platformId: string): GroupIds | undefined {
  const seed = scope.idempotencySeed;
  if (seed === undefined) return undefined;
  return {
    rootId: derivedUuid(`${seed}:root:${platformId}`),
    groupId: derivedUuid(`${seed}:group:${platformId}`),
    replyId: (index) => derivedUuid(`${seed}:reply:${platformId}:${index}`),
  };
}

/**
 * The group an earlier run of the same call stored under these ids (its root was refused as a
 * duplicate): answered as this run's, its missing replies added, since that run may have died
 * between the root and its replies. Another workspace's or another group's post is a conflict.
 */
export async function groupOfEarlierRun(
  deps: CoreDeps,
  scope: Scope,
  root: PostDoc,
  children: readonly PostDoc[],
): Promise<PostGroupView> {
  const earlier = await deps.db.posts.findOne({ _id: root._id });
  if (!earlier || earlier.workspaceId !== scope.workspaceId || earlier.groupId !== root.groupId)
    throw new AppError('conflict', 'This post was already created by an earlier run');
  const replyIds = earlier.replyIds ?? [];
  const stored = await deps.db.posts.find({ _id: { $in: replyIds } }).toArray();
  const have = new Set(stored.map((post) => post._id));
  const missing = children.filter((child) => replyIds.includes(child._id) && !have.has(child._id));
  if (missing.length > 0) {
    await deps.db.posts.insertMany(missing, { ordered: false }).catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
  }
  const replies = [...stored, ...missing].toSorted((a, b) => replyIds.indexOf(a._id) - replyIds.indexOf(b._id));
  return { root: toPost(earlier), children: replies.map((reply) => toPost(reply)) };
}
