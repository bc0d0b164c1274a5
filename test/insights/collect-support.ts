import type { CoreDeps } from '../../src/core/context.js';
import { publicUrlOf } from '../../src/core/media/view.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { withTikTokToken } from '../../src/core/providers/tiktok/connect/token-access.js';
import { PLAN_COLLECTION_EVERY_MS, planCollectionJob } from '../../src/core/insights/collect-job.js';
import { initPhotoPost } from '../../src/core/providers/tiktok/publish.js';
import type { TikTokFixture } from '../support/tiktok.js';
import { ageCollectors } from './support.js';
import { tiktokHttpOf } from '../../src/core/providers/tiktok/http-of.js';

/** GETs or sends JSON to the emulator's control API and answers the JSON. */
export async function emulatorControl<T>(f: TikTokFixture, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${f.emulator.url}/__control${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`control ${method} ${path} answered ${response.status}`);
  return (await response.json()) as T;
}

/** How many `POST /v2/video/query/` calls the emulator has received. */
export async function videoQueryCalls(f: TikTokFixture): Promise<number> {
  const { requests } = await emulatorControl<{ requests: Record<string, number> }>(f, 'GET', '/requests');
  return requests['POST /v2/video/query/'] ?? 0;
}

/**
 * `count` public posts on the account at TikTok, made the way a creator makes several from one upload: a
 * photo sent to the inbox (a real init from Postdeck's client), then posted from the app `count` times (the
 * control API). Answers TikTok's post ids.
 */
export async function postsOnTikTok(
  f: TikTokFixture,
  deps: CoreDeps,
  platform: PlatformDoc,
  image: Parameters<typeof publicUrlOf>[0],
  count: number,
): Promise<string[]> {
  const { publishId } = await withTikTokToken(deps, platform, (token) =>
    initPhotoPost(tiktokHttpOf(deps), token, {
      postMode: 'MEDIA_UPLOAD',
      postInfo: { title: 'From the inbox' },
      photoImages: [publicUrlOf(image, deps.media.publicBaseUrl)],
      photoCoverIndex: 0,
    }),
  );
  for (let tries = 0; ; tries += 1) {
    const publish = await emulatorControl<{ status: string }>(f, 'GET', `/posts/${publishId}`);
    if (publish.status === 'SEND_TO_USER_INBOX') break;
    if (tries > 600) throw new Error(`the inbox photo stayed ${publish.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const posted = await emulatorControl<{ postIds: string[] }>(f, 'POST', `/posts/${publishId}/user-posts`, {
    postCount: count,
  });
  if (posted.postIds.length !== count) throw new Error(`TikTok released ${posted.postIds.length} of ${count} posts`);
  return posted.postIds;
}

/**
 * Moves time on by `ms` for these posts, as if the worker had waited that long: the emulator's post clock
 * (their counts age), then everything Postdeck stored about them that much earlier (each snapshot's time,
 * then the record's publishing time, next due time and latest counts' time, in one write per record, then
 * the accounts' next due times). The records and accounts go last: they make a post due, so no run can take
 * a snapshot that this would move again.
 */
export async function agePosts(f: TikTokFixture, deps: CoreDeps, postIds: string[], ms: number): Promise<void> {
  await emulatorControl(f, 'POST', '/clock', { advanceMs: ms });
  await ageStoredPosts(deps, postIds, ms);
}

/**
 * Moves Postdeck's stored times of these posts `ms` earlier, as agePosts does after the emulator's clock (for a
 * network whose numbers the test sets itself, such as Instagram's).
 */
export async function ageStoredPosts(deps: CoreDeps, postIds: string[], ms: number): Promise<void> {
  const earlier = (date: Date) => new Date(date.getTime() - ms);
  for (const snapshot of await deps.db.postSnapshots.find({ postId: { $in: postIds } }).toArray()) {
    await deps.db.postSnapshots.updateOne({ _id: snapshot._id }, { $set: { takenAt: earlier(snapshot.takenAt) } });
  }
  const records = await deps.db.postInsights.find({ _id: { $in: postIds } }).toArray();
  for (const record of records) {
    await deps.db.postInsights.updateOne(
      { _id: record._id },
      {
        $set: {
          publishedAt: earlier(record.publishedAt),
          ...(record.nextDueAt ? { nextDueAt: earlier(record.nextDueAt) } : {}),
          ...(record.latest ? { 'latest.takenAt': earlier(record.latest.takenAt) } : {}),
        },
      },
    );
  }
  await ageCollectors(
    deps,
    records.map((record) => record.platformId),
    ms,
  );
}

/**
 * Moves the planner's last run a period earlier, as if its minute had gone by: the recurring housekeeping
 * then runs the worker's own planner at its next turn (15 s) rather than up to a minute later.
 */
export async function agePlanner(deps: CoreDeps): Promise<void> {
  const last = await deps.db.periodicRuns.findOne({ _id: planCollectionJob.name });
  if (!last) return;
  await deps.db.periodicRuns.updateOne(
    { _id: planCollectionJob.name },
    { $set: { lastRunAt: new Date(last.lastRunAt.getTime() - PLAN_COLLECTION_EVERY_MS) } },
  );
}
