import { recordAudit, requesterScope } from '../audit/record.js';
import type { CoreDeps } from '../context.js';
import type { DomainEvent } from '../events/documents.js';
import { domainEvent, relayEvents } from '../events/relay.js';
import { recordInsightRelease } from '../insights/open-insight.js';
import type { ProviderId } from '../platforms/documents.js';
import { providerOfPlatform } from '../platforms/provider-of.js';
import type { PostDoc } from '../posts/documents.js';
import { refundPostCap } from '../posts/post-cap.js';
import { settleChildren } from './children.js';

/**
 * Ends a PUBLISHING post in ERROR with a text a person can act on; `refund` gives its cap unit back (only
 * when TikTok certainly created nothing). Conditional on PUBLISHING, so a second writer of the same end
 * (a job run twice) changes nothing; the refund is idempotent. Its waiting replies end in ERROR too.
 */
export async function failPost(
  deps: CoreDeps,
  post: PostDoc,
  errorText: string,
  options: { refund: boolean },
): Promise<void> {
  // The refund comes first, so whoever sees the ERROR also sees the unit back (refunding twice is harmless).
  if (options.refund) await refundPostCap(deps, post);
  const now = deps.now();
  const provider = await providerOfPlatform(deps, post.workspaceId, post.platformId);
  const event = rootEvent('post.failed', post, provider, now);
  const result = await deps.db.posts.updateOne(
    { _id: post._id, state: 'PUBLISHING' },
    { $set: { state: 'ERROR', errorText, updatedAt: now }, ...(event ? { $push: { events: event } } : {}) },
  );
  if (result.modifiedCount === 0) return;
  deps.metrics.publishOutcome(provider ?? 'unknown', 'failed');
  if (event) void relayEvents(deps, [event]);
  deps.logger.info({ postId: post._id, errorText, refund: options.refund }, 'post ended in ERROR');
  await settleChildren(deps, post, 'ERROR');
}

/**
 * Marks a PUBLISHING post PUBLISHED (releaseId null while TikTok withholds the id) and schedules its replies.
 * Returns false when it was not PUBLISHING any more (another run got there first).
 */
export async function markPublished(
  deps: CoreDeps,
  post: PostDoc,
  release: { releaseId: string | null; releaseUrl: string | null },
): Promise<boolean> {
  const now = deps.now();
  const provider = await providerOfPlatform(deps, post.workspaceId, post.platformId);
  const event = rootEvent('post.published', post, provider, now);
  const result = await deps.db.posts.updateOne(
    { _id: post._id, state: 'PUBLISHING' },
    {
      $set: { state: 'PUBLISHED', ...release, errorText: null, updatedAt: now },
      ...(event ? { $push: { events: event } } : {}),
    },
  );
  if (result.modifiedCount === 0) return false;
  deps.metrics.publishOutcome(provider ?? 'unknown', 'published');
  if (event) void relayEvents(deps, [event]);
  deps.logger.info({ postId: post._id, releaseId: release.releaseId }, 'post PUBLISHED');
  if (event) {
    // Named after whoever asked for it (created it to publish, or approved it): the engine only carried it out.
    const scope = requesterScope(post, post.requestedBy);
    const details = { provider, releaseId: release.releaseId, releaseUrl: release.releaseUrl };
    await recordAudit(deps, scope, { action: 'post.published', subject: { type: 'post', id: post._id }, details });
  }
  await settleChildren(deps, post, 'PUBLISHED', now);
  return true;
}

/** Fills in the post id TikTok released after moderation, on a post already PUBLISHED without one. */
export async function recordLateRelease(
  deps: CoreDeps,
  postId: string,
  release: { releaseId: string; releaseUrl: string | null },
): Promise<void> {
  await deps.db.posts.updateOne(
    { _id: postId, state: 'PUBLISHED', releaseId: null },
    { $set: { ...release, updatedAt: deps.now() } },
  );
  // Lost only to a crash right here: the collector's due query copies the id from the post then.
  await recordInsightRelease(deps, postId, release.releaseId);
}

/**
 * Puts a PUBLISHING post back in QUEUE, due at `dueAt`, for a new attempt (the last one created nothing);
 * `heldText` says why it waits when the network holds it. The API may change it again from here, under its
 * edit lease, like any queued post.
 */
export async function requeuePost(deps: CoreDeps, post: PostDoc, dueAt: Date, heldText?: string): Promise<boolean> {
  const result = await deps.db.posts.updateOne(
    { _id: post._id, state: 'PUBLISHING' },
    { $set: { state: 'QUEUE', dueAt, errorText: heldText ?? null, updatedAt: deps.now() } },
  );
  return result.modifiedCount > 0;
}

/** A root post's outcome as an event (replies have none: their root's card speaks for the group). */
function rootEvent(
  type: 'post.published' | 'post.failed',
  post: PostDoc,
  provider: ProviderId | null,
  at: Date,
): DomainEvent | null {
  if (post.parentPostId !== null) return null;
  const subject = { workspaceId: post.workspaceId, subjectId: post._id, actor: { type: 'system' } as const, provider };
  return domainEvent(type, subject, at);
}
