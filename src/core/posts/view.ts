import type { z } from 'zod';
import type { CoreDeps } from '../context.js';
import type { PostDoc } from './documents.js';
import type { PublishAttemptDoc } from '../publishing/documents.js';
import type { PostAttemptSchema, PostGroupSchema, PostSchema } from './schema.js';

export type PostView = z.infer<typeof PostSchema>;
export type PostGroupView = z.infer<typeof PostGroupSchema>;
type AttemptView = z.infer<typeof PostAttemptSchema>;

/** A post as the API shows it: the spec's fields with ISO times, plus its attempts. */
export function toPost(doc: PostDoc, attempts: readonly PublishAttemptDoc[] = []): PostView {
  return {
    id: doc._id,
    groupId: doc.groupId,
    parentPostId: doc.parentPostId,
    integrationId: doc.platformId,
    content: doc.content,
    state: doc.state,
    scheduledFor: doc.scheduledFor?.toISOString() ?? null,
    delayInMinutes: doc.delayInMinutes,
    releaseId: doc.releaseId,
    releaseUrl: doc.releaseUrl,
    settings: doc.settings,
    mediaIds: doc.mediaIds,
    errorText: doc.errorText,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    attempts: [...attempts].sort((a, b) => a.n - b.n).map(toAttempt),
  };
}

function toAttempt(doc: PublishAttemptDoc): AttemptView {
  return {
    n: doc.n,
    claimedAt: doc.claimedAt.toISOString(),
    phase: doc.phase,
    publishId: doc.publishId,
    events: doc.events.map((event) => ({ at: event.at.toISOString(), what: event.what, detail: event.detail })),
  };
}

/** The attempts of the given posts, by post id (one query). */
export async function attemptsByPost(
  deps: CoreDeps,
  postIds: readonly string[],
): Promise<Map<string, PublishAttemptDoc[]>> {
  const byPost = new Map<string, PublishAttemptDoc[]>();
  if (postIds.length === 0) return byPost;
  for (const attempt of await deps.db.publishAttempts.find({ postId: { $in: [...postIds] } }).toArray()) {
    const list = byPost.get(attempt.postId) ?? [];
    list.push(attempt);
    byPost.set(attempt.postId, list);
  }
  return byPost;
}

/** Splits a group's documents into the root and its replies (in order: createdAt, then id). */
export function splitGroup(docs: readonly PostDoc[]): { root: PostDoc; children: PostDoc[] } | null {
  const root = docs.find((doc) => doc.parentPostId === null);
  if (!root) return null;
  const children = docs
    .filter((doc) => doc !== root)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a._id.localeCompare(b._id));
  return { root, children };
}

/** Renders a group with each post's attempts. */
export async function renderGroup(
  deps: CoreDeps,
  group: { root: PostDoc; children: readonly PostDoc[] },
): Promise<PostGroupView> {
  const attempts = await attemptsByPost(deps, [group.root._id, ...group.children.map((c) => c._id)]);
  return {
    root: toPost(group.root, attempts.get(group.root._id)),
    children: group.children.map((child) => toPost(child, attempts.get(child._id))),
  };
}
