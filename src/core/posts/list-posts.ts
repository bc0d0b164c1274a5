import type { CoreDeps, Scope } from '../context.js';
import type { PostDoc } from './documents.js';
import { checkedRange, DAY_MS, MAX_RANGE_DAYS } from '../date-range.js';
import type { ListPostsInput } from './schema.js';
import { attemptsByPost, toPost, type PostView } from './view.js';

/** Without any date, the list starts this far back (and spans the maximum range from there). */
const DEFAULT_LOOKBACK_DAYS = 31;

/**
 * List posts: the workspace's root posts whose time (scheduledFor, or createdAt for a post without
 * one) is in [startDate, endDate), sorted by that time, then id.
 */
export async function listPosts(deps: CoreDeps, scope: Scope, query: ListPostsInput): Promise<{ posts: PostView[] }> {
  const { start, end } = listRange(query, deps.now());
  const docs = await deps.db.posts
    .find({
      workspaceId: scope.workspaceId,
      parentPostId: null,
      $or: [{ scheduledFor: { $gte: start, $lt: end } }, { scheduledFor: null, createdAt: { $gte: start, $lt: end } }],
    })
    .toArray();
  docs.sort((a, b) => timeOf(a) - timeOf(b) || a._id.localeCompare(b._id));
  const attempts = await attemptsByPost(
    deps,
    docs.map((doc) => doc._id),
  );
  return { posts: docs.map((doc) => toPost(doc, attempts.get(doc._id))) };
}

function timeOf(doc: PostDoc): number {
  return (doc.scheduledFor ?? doc.createdAt).getTime();
}

function listRange(query: ListPostsInput, now: Date): { start: Date; end: Date } {
  const maxMs = MAX_RANGE_DAYS * DAY_MS;
  const givenStart = query.startDate === undefined ? null : new Date(query.startDate);
  const givenEnd = query.endDate === undefined ? null : new Date(query.endDate);
  const start =
    givenStart ??
    (givenEnd ? new Date(givenEnd.getTime() - maxMs) : new Date(now.getTime() - DEFAULT_LOOKBACK_DAYS * DAY_MS));
  const end = givenEnd ?? new Date(start.getTime() + maxMs);
  return checkedRange(start, end);
}
