import type { Filter } from 'mongodb';
import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';
import { findWorkspacePlatform } from '../platforms/find-platform.js';
import { findWorkspacePost } from '../posts/find-post.js';
import type { PostInsightDoc } from './documents.js';
import { narrowToAccounts } from './network-filter.js';
import { analyticsRange } from './range.js';
import type { ListPostMetricsInput, PostMetricsListSchema, PostMetricsSchema } from './schema.js';
import { countsOf, engagementRate, toSummary } from './view.js';

const HOUR_MS = 3_600_000;

/**
 * One post's numbers: the latest counts, the series and the collection status. A post that is not
 * PUBLISHED has none yet (conflict, saying when they start); a PUBLISHED one whose record is still
 * being made reads as collecting with no counts.
 */
export async function getPostMetrics(
  deps: CoreDeps,
  scope: Scope,
  postId: string,
): Promise<z.infer<typeof PostMetricsSchema>> {
  const post = await findWorkspacePost(deps, scope, postId);
  const doc = await deps.db.postInsights.findOne({ _id: post._id, workspaceId: scope.workspaceId });
  if (!doc) {
    if (post.state !== 'PUBLISHED') {
      throw new AppError(
        'conflict',
        `Post ${post._id} is ${post.state}, not PUBLISHED: its metrics start with its first snapshot, a few minutes after it is published.`,
      );
    }
    return {
      postId: post._id,
      platformId: post.platformId,
      releaseId: post.releaseId,
      publishedAt: post.updatedAt.toISOString(),
      status: 'collecting',
      unavailableReason: null,
      metrics: null,
      engagementRate: null,
      viewsAt48h: null,
      nextSnapshotAt: null,
      hook: null,
      series: [],
    };
  }
  const snapshots = await deps.db.postSnapshots.find({ postId: doc._id }).toArray();
  snapshots.sort((a, b) => a.slot - b.slot);
  const series = snapshots.map((snapshot) => ({
    ...countsOf(snapshot),
    ageHours: Math.round(((snapshot.takenAt.getTime() - doc.publishedAt.getTime()) / HOUR_MS) * 100) / 100,
  }));
  return { ...toSummary(doc, deps.now()), series };
}

/**
 * A page of the workspace's published posts in [startDate, endDate) of publishing, highest first by
 * `sortBy` (ties by id). The range is bounded, so the page is cut from the sorted range:
 * the cursor holds the last row's value and id, so a page never repeats a row of the one before.
 */
export async function listPostMetrics(
  deps: CoreDeps,
  scope: Scope,
  input: ListPostMetricsInput,
): Promise<z.infer<typeof PostMetricsListSchema>> {
  const { start, end } = analyticsRange(input, deps.now());
  if (input.platformId !== undefined) await findWorkspacePlatform(deps, scope, input.platformId);
  const after = input.cursor === undefined ? null : decodeCursor(input.cursor, input.sortBy);
  const filter: Filter<PostInsightDoc> = { workspaceId: scope.workspaceId, publishedAt: { $gte: start, $lt: end } };
  await narrowToAccounts(deps, scope, filter, input);
  const docs = await deps.db.postInsights.find(filter).toArray();
  const rows = docs.map((doc) => ({ doc, value: sortValue(doc, input.sortBy) }));
  rows.sort((a, b) => b.value - a.value || a.doc._id.localeCompare(b.doc._id));
  const from = after
    ? rows.filter((row) => row.value < after.value || (row.value === after.value && row.doc._id > after.id))
    : rows;
  const page = from.slice(0, input.limit);
  const result: z.infer<typeof PostMetricsListSchema> = { posts: page.map((row) => toSummary(row.doc, deps.now())) };
  const last = page.at(-1);
  if (from.length > input.limit && last) result.nextCursor = encodeCursor(input.sortBy, last.value, last.doc._id);
  return result;
}

/** The number a row sorts by; a post without counts sorts below every post with them. */
function sortValue(doc: PostInsightDoc, sortBy: ListPostMetricsInput['sortBy']): number {
  if (!doc.latest) return -1;
  if (sortBy === 'engagement_rate') return engagementRate(doc.latest) ?? 0;
  return doc.latest[sortBy];
}

function encodeCursor(sortBy: string, value: number, id: string): string {
  return Buffer.from(JSON.stringify([sortBy, value, id])).toString('base64url');
}

function decodeCursor(cursor: string, sortBy: string): { value: number; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value[0] === sortBy && typeof value[1] === 'number' && typeof value[2] === 'string') {
      return { value: value[1], id: value[2] };
    }
  } catch {
    // Falls through to the error below: a cursor is opaque and only ever comes from us.
  }
  throw new AppError('invalid_request', 'The cursor is not valid', [
    { path: ['cursor'], message: 'not a cursor returned by this listing with the same sortBy' },
  ]);
}
