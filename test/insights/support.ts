import type { CoreDeps } from '../../src/core/context.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { insightsConsumer } from '../../src/core/insights/published-consumer.js';
import { FIRST_SNAPSHOT_AFTER_MS } from '../../src/core/insights/schedule.js';
import { markPublished } from '../../src/core/publishing/post-outcome.js';
import { buildPost } from '../support/posts.js';
import type { TestServer } from '../support/http.js';
import { makeJpeg, upload } from '../support/media.js';
import { call } from '../support/posts.js';

/**
 * A root post (public unless `privacyLevel` says otherwise) published the way the engine publishes it: PUBLISHING (as its attempt left it), then
 * `markPublished` with TikTok's post id, and its `post.published` event delivered to the insights
 * consumer (which opens the post's insight record) as a worker's event delivery would. Published
 * `publishedAgoMs` before `deps.now()`, by default FIRST_SNAPSHOT_AFTER_MS: its first snapshot is due now, as a
 * collector finds a post a few minutes after it was published.
 */
export async function publishPost(
  deps: CoreDeps,
  tenant: { workspaceId: string; accountId: string },
  platformId: string,
  options: {
    mediaIds?: string[];
    releaseId?: string | null;
    content?: string;
    privacyLevel?: string;
    publishedAgoMs?: number;
  } = {},
): Promise<PostDoc> {
  const post = await buildPost(deps, tenant.workspaceId, {
    accountId: tenant.accountId,
    platformId,
    state: 'PUBLISHING',
    // Public unless asked otherwise: TikTok counts only public posts.
    settings: { content_posting_method: 'DIRECT_POST', privacy_level: options.privacyLevel ?? 'PUBLIC_TO_EVERYONE' },
    mediaIds: options.mediaIds ?? [],
    ...(options.content === undefined ? {} : { content: options.content }),
  });
  const releaseId = options.releaseId === undefined ? `v_${post._id.slice(0, 8)}` : options.releaseId;
  const agoMs = options.publishedAgoMs ?? FIRST_SNAPSHOT_AFTER_MS;
  const publishing = { ...deps, now: () => new Date(deps.now().getTime() - agoMs) };
  const published = await markPublished(publishing, post, { releaseId, releaseUrl: null });
  if (!published) throw new Error('the post was not PUBLISHING');
  const stored = (await deps.db.posts.findOne({ _id: post._id })) as PostDoc;
  const event = stored.events?.find((candidate) => candidate.type === 'post.published');
  if (!event) throw new Error('markPublished recorded no post.published event');
  await insightsConsumer.handle(deps, event);
  return stored;
}

/** A carousel's slides composited over REST with `hook` on slide 0: their media ids, slide order. */
export async function compositeCarousel(
  server: TestServer,
  apiKey: string,
  hook: string,
  textStyleId?: string,
): Promise<string[]> {
  const response = await upload(server, apiKey, { bytes: await makeJpeg(540, 960), name: 'p.jpg', type: 'image/jpeg' });
  const mediaId = String(((await response.json()) as { id: string }).id);
  const answer = await call(server, apiKey, 'POST', '/slides/composite', {
    slides: [
      { index: 0, mediaId, caption: hook, ...(textStyleId ? { textStyleId } : {}) },
      { index: 1, mediaId, caption: 'The second slide' },
    ],
  });
  if (answer.status !== 201) throw new Error(`composite failed: ${answer.text}`);
  return (answer.body.slides as { mediaId: string }[]).map((slide) => slide.mediaId);
}

/** Counts for a snapshot. */
export function counts(views: number, likes = 0, comments = 0, shares = 0) {
  return { views, likes, comments, shares };
}

/**
 * Moves the collection due times of these accounts back by `ms`, with their posts' schedules (tests compress
 * time by moving stored times back): the planner then sees their posts due as a real hour later would.
 */
export async function ageCollectors(deps: CoreDeps, platformIds: Iterable<string>, ms: number): Promise<void> {
  for (const platformId of new Set(platformIds)) {
    const state = await deps.db.insightCollectors.findOne({ _id: platformId });
    if (!state?.dueAt) continue;
    await deps.db.insightCollectors.updateOne(
      { _id: platformId },
      { $set: { dueAt: new Date(state.dueAt.getTime() - ms) } },
    );
  }
}
