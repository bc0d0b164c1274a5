import { mintApiKey } from '../../src/core/auth/api-keys.js';
import type { CoreDeps } from '../../src/core/context.js';
import { recordAccountSnapshot } from '../../src/core/insights/account-snapshot.js';
import { recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { compositeCarousel, counts, publishPost } from '../insights/support.js';
import { buildPlatform } from '../support/factories.js';
import type { TestServer } from '../support/http.js';
import type { TestUser } from '../support/identity.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** A snapshot as the seeding recorded it: which post, when, how many views. */
export interface SeededSnapshot {
  postId: string;
  at: Date;
  views: number;
}

/** A caption a spreadsheet would run as a formula, with quotes and a comma to quote. */
export const FORMULA_CAPTION = '=HYPERLINK("http://evil.example","click"), then "quoted" words';

/**
 * Published `hoursAgo` hours before now, as the engine publishes it (publishPost, with a clock at that
 * moment, so the insight record starts then).
 */
export async function publishAt(
  deps: CoreDeps,
  user: TestUser,
  platform: PlatformDoc,
  hoursAgo: number,
  content: string,
  mediaIds: string[] = [],
): Promise<PostDoc> {
  const at = new Date(Date.now() - hoursAgo * HOUR);
  return publishPost({ ...deps, now: () => at }, user, platform._id, { content, mediaIds, publishedAgoMs: 0 });
}

/**
 * The owner's workspace: two carousels with hooks (one ranked at 48 hours), a post whose caption is a
 * formula, a post just published with no numbers yet, and an account's followers over five days. The
 * stranger's workspace: a post with a million views and its own hook and account.
 */
export async function seedAnalytics(deps: CoreDeps, server: TestServer, owner: TestUser, stranger: TestUser) {
  const snapshots: SeededSnapshot[] = [];
  const ownerKey = await mintApiKey(deps, { ...owner.scope, userId: owner.user.id, name: 'seed' });
  const strangerKey = await mintApiKey(deps, { ...stranger.scope, userId: stranger.user.id, name: 'seed' });
  const platform = await buildPlatform(deps, owner.workspaceId, {
    displayName: 'Mia Creates',
    displayHandle: 'mia.creates',
  });
  const theirPlatform = await buildPlatform(deps, stranger.workspaceId, {
    displayName: 'Other Studio',
    displayHandle: 'other.studio',
  });
  const snap = async (post: PostDoc, hours: number, views: number, likes: number, comments: number, shares: number) => {
    const record = await deps.db.postInsights.findOne({ _id: post._id });
    const at = new Date(record!.publishedAt.getTime() + hours * HOUR);
    await recordPostSnapshot(deps, post._id, counts(views, likes, comments, shares), at);
    snapshots.push({ postId: post._id, at, views });
  };

  const sleepSlides = await compositeCarousel(server, ownerKey.apiKey, 'Three sleep myths you still believe');
  const sleep = await publishAt(deps, owner, platform, 6 * 24, 'Sleep myths, busted #sleep', sleepSlides);
  await snap(sleep, 0.05, 120, 10, 1, 0);
  await snap(sleep, 24, 3_000, 300, 20, 15);
  await snap(sleep, 48, 5_200, 480, 33, 40);
  await snap(sleep, 5 * 24, 8_000, 700, 52, 61);
  const coffeeSlides = await compositeCarousel(server, ownerKey.apiKey, 'Coffee after 2pm?');
  const coffee = await publishAt(deps, owner, platform, 3 * 24, 'Is coffee after 2pm a mistake?', coffeeSlides);
  await snap(coffee, 1, 400, 12, 3, 1);
  await snap(coffee, 24, 1_500, 90, 8, 30);
  await snap(coffee, 48, 2_100, 150, 12, 44);
  const formula = await publishAt(deps, owner, platform, 26, FORMULA_CAPTION);
  await snap(formula, 2, 90, 9, 0, 1);
  const waiting = await publishAt(deps, owner, platform, 0.1, 'Just published, no numbers yet');
  for (const [daysAgo, followers] of [
    [5, 1_000],
    [3, 1_150],
    [1, 1_400],
    [0.05, 1_480],
  ] as const) {
    await recordAccountSnapshot(
      deps,
      platform._id,
      { followers, following: 12, likes: 9_000, videos: 4 },
      new Date(Date.now() - daysAgo * DAY),
    );
  }

  const theirSlides = await compositeCarousel(server, strangerKey.apiKey, 'Their secret hook');
  const theirs = await publishAt(deps, stranger, theirPlatform, 4 * 24, 'Their million-view post', theirSlides);
  await snap(theirs, 48, 1_000_000, 1, 1, 1);
  await recordAccountSnapshot(
    deps,
    theirPlatform._id,
    { followers: 777_777, following: 1, likes: 1, videos: 1 },
    new Date(Date.now() - DAY),
  );
  return { platform, theirPlatform, posts: { sleep, coffee, formula, waiting, theirs }, snapshots };
}
