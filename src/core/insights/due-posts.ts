import type { CoreDeps } from '../context.js';
import type { InsightMemberDoc } from './collector-documents.js';
import { memberId } from './members.js';
import { markUnavailable } from './record-snapshot.js';
import { LAST_SLOT, slotAt, slotDueAt } from './schedule.js';
import { notCountedReason } from './unavailable-reasons.js';

const MINUTE_MS = 60_000;
/** A member whose record is not there yet (its opener is between its two inserts) is looked at again this soon… */
export const PENDING_RECHECK_MS = MINUTE_MS;
/** …and passed for good once this old: its opener died, and the event's retry adds a member of its own. */
export const ORPHAN_AFTER_MS = 10 * MINUTE_MS;

export const NEVER_RELEASED_REASON =
  "TikTok never released this post's id after moderation, so its counts cannot be read.";

/** A post whose next snapshot is due: what the collector asks TikTok about. */
export interface DuePost {
  postId: string;
  /** TikTok's post id, to query. */
  releaseId: string;
  publishedAt: Date;
  nextSlot: number;
  nextDueAt: Date;
}

/** One walk of an account's members: its due posts and what the account's collection state keeps of it. */
export interface AccountWalk {
  /** The posts due at the walk's `now`, the most overdue first. */
  due: DuePost[];
  /** When each post still collecting (or member still waiting for its record) is next looked at, by its id. */
  nextLooks: Map<string, Date>;
  /** The first member not done (collecting, or waiting for its record); the next walk starts there. */
  walkFrom: number;
  /** The first member missing: where the walk stopped. */
  walkedTo: number;
}

/**
 * Walks one connected account's members (`insight_members`, `<platformId>#<n>`) from where the last run left
 * the first one not done, to the first one missing, reading each member's record by `_id`: no scan, whatever
 * the number of records. A record still waiting for TikTok's post id takes it from its post (by `_id`); one
 * that never gets it is `unavailable` once past its last slot.
 */
export async function walkAccount(deps: CoreDeps, platformId: string, now: Date): Promise<AccountWalk> {
  const state = await deps.db.insightCollectors.findOne({ _id: platformId }, { projection: { walkFrom: 1 } });
  const walk: AccountWalk = { due: [], nextLooks: new Map(), walkFrom: -1, walkedTo: 0 };
  const taken = new Set<string>();
  let n = state?.walkFrom ?? 0;
  for (; ; n += 1) {
    const member = await deps.db.insightMembers.findOne({ _id: memberId(platformId, n) });
    if (!member) break;
    // A post with more than one member is taken once, at the first whose record was there.
    if (taken.has(member.postId)) continue;
    const look = await lookAt(deps, member, now, walk);
    if (look !== 'no record') taken.add(member.postId);
    if (look !== 'done' && walk.walkFrom < 0) walk.walkFrom = n;
  }
  walk.walkedTo = n;
  if (walk.walkFrom < 0) walk.walkFrom = n;
  walk.due.sort((a, b) => a.nextDueAt.getTime() - b.nextDueAt.getTime() || (a.postId < b.postId ? -1 : 1));
  return walk;
}

/** The earliest of a walk's next looks: when the account's collection is next due; null when nothing is left. */
export function earliestLook(walk: AccountWalk): Date | null {
  let earliest: Date | null = null;
  for (const at of walk.nextLooks.values()) if (!earliest || at < earliest) earliest = at;
  return earliest;
}

/**
 * At most `limit` posts of one connected account whose next snapshot is due at `now`, the most overdue first
 * (a walk of its members).
 */
export async function listDuePosts(deps: CoreDeps, platformId: string, now: Date, limit: number): Promise<DuePost[]> {
  return (await walkAccount(deps, platformId, now)).due.slice(0, limit);
}

async function lookAt(
  deps: CoreDeps,
  member: InsightMemberDoc,
  now: Date,
  walk: AccountWalk,
): Promise<'open' | 'done' | 'no record'> {
  const record = await deps.db.postInsights.findOne(
    { _id: member.postId },
    { projection: { releaseId: 1, status: 1, publishedAt: 1, nextSlot: 1, nextDueAt: 1 } },
  );
  if (!record) {
    // Its opener is between the member and the record (or died there): looked at again soon, then passed.
    if (now.getTime() - member.createdAt.getTime() >= ORPHAN_AFTER_MS) return 'done';
    walk.nextLooks.set(member._id, new Date(now.getTime() + PENDING_RECHECK_MS));
    return 'no record';
  }
  if (record.status !== 'collecting' || record.nextSlot === null || record.nextDueAt === null) return 'done';
  const releaseId = record.releaseId ?? (await copyRelease(deps, record._id));
  if (releaseId === NOT_COUNTED) return 'done';
  if (releaseId === null) {
    // Withheld after moderation: its late release adds a member (a prompt run); this covers a crash before that.
    if (now >= slotDueAt(record.publishedAt, LAST_SLOT)) {
      await markUnavailable(deps, record._id, NEVER_RELEASED_REASON);
      return 'done';
    }
    walk.nextLooks.set(record._id, slotDueAt(record.publishedAt, slotAt(record.publishedAt, now) + 1));
    return 'open';
  }
  walk.nextLooks.set(record._id, record.nextDueAt);
  if (record.nextDueAt <= now) {
    walk.due.push({
      postId: record._id,
      releaseId,
      publishedAt: record.publishedAt,
      nextSlot: record.nextSlot,
      nextDueAt: record.nextDueAt,
    });
  }
  return 'open';
}

/** What copyRelease answers for a post TikTok never counts: it was just marked `unavailable` with the reason. */
const NOT_COUNTED = Symbol('not counted');

/**
 * TikTok's post id from the post, copied onto its record (written by the run alone); null while withheld. A
 * record opened before non-public posts were told apart at once ends here `unavailable`, as one opened now starts.
 */
async function copyRelease(deps: CoreDeps, postId: string): Promise<string | null | typeof NOT_COUNTED> {
  const post = await deps.db.posts.findOne({ _id: postId }, { projection: { releaseId: 1, settings: 1 } });
  const notCounted = notCountedReason(post?.settings?.privacy_level);
  if (notCounted) {
    await markUnavailable(deps, postId, notCounted);
    return NOT_COUNTED;
  }
  if (!post?.releaseId) return null;
  await deps.db.postInsights.updateOne(
    { _id: postId, releaseId: null },
    { $set: { releaseId: post.releaseId, updatedAt: deps.now() } },
  );
  return post.releaseId;
}
