import { Readable } from 'node:stream';
import type { CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/core/context.js';
import { collectAccount } from '../../src/core/insights/collect.js';
import { planCollection, requestCollection } from '../../src/core/insights/collect-job.js';
import { FIRST_SNAPSHOT_WITHIN_MS } from '../../src/core/insights/schedule.js';
import type { MediaDoc } from '../../src/core/media/documents.js';
import { ingestUpload } from '../../src/core/media/ingest.js';
import { createUploadedMedia } from '../../src/core/media/upload-media.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { deletePostGroup } from '../../src/core/posts/delete-post.js';
import { recordLateRelease } from '../../src/core/publishing/post-outcome.js';
import { tunePublishing } from '../../src/core/publishing/settings.js';
import type { BootstrapResult } from '../../src/core/tenancy/bootstrap.js';
import { connectAccount, systemScope } from '../platforms/support.js';
import { FAST } from '../publishing/support.js';
import { openTestDatabase, watchCommands, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { makeJpeg } from '../support/media.js';
import { freePort } from '../support/spawn.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { postsOnTikTok } from './collect-support.js';
import { ageCollectors, publishPost } from './support.js';

// The collection finds an account's posts by `_id` only (FerretDB pushes down nothing else): its members
// `<platformId>#<n>` and their records. No worker runs here: each run and planner pass is the test's own call.

const HOUR_MS = 3_600_000;

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let tenant: BootstrapResult;
let image: MediaDoc;
let restore: () => void;
beforeAll(async () => {
  restore = tunePublishing(FAST);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  f = await startTikTokFixture({ allowHttpPullUrls: true, verifiedUrlPrefixes: [`${base}/`] });
  t = await openTestDatabase({ tiktok: f.config, media: { publicBaseUrl: base } });
  server = await startTestServer(t, { port });
  tenant = await buildTenant(t.deps);
  const file = await ingestUpload(t.deps.media, Readable.from([await makeJpeg(320, 240)]));
  const media = await createUploadedMedia(t.deps, t.deps.media, systemScope(tenant), file, {});
  image = (await t.deps.db.media.findOne({ _id: media.id }))!;
}, 60_000);
afterAll(async () => {
  await t.close();
  await server.stop();
  await f.emulator.stop();
  restore();
});

async function connected(): Promise<PlatformDoc> {
  return connectAccount(t.deps, systemScope(tenant), (await f.createAccount()).openId);
}

/** `count` posts of `platform` published here, their TikTok posts public: their post ids. */
async function published(platform: PlatformDoc, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (const releaseId of await postsOnTikTok(f, t.deps, platform, image, count)) {
    ids.push((await publishPost(t.deps, tenant, platform._id, { releaseId }))._id);
  }
  return ids;
}

/** An hour on for these posts: the emulator's post clock, their schedules and their accounts' due times. */
async function age(postIds: string[], ms: number): Promise<void> {
  f.emulator.control.postClockOffsetMs += ms;
  const records = await t.deps.db.postInsights.find({ _id: { $in: postIds } }).toArray();
  await ageCollectors(
    t.deps,
    records.map((record) => record.platformId),
    ms,
  );
  for (const record of records) {
    await t.deps.db.postInsights.updateOne(
      { _id: record._id },
      {
        $set: {
          publishedAt: new Date(record.publishedAt.getTime() - ms),
          ...(record.nextDueAt ? { nextDueAt: new Date(record.nextDueAt.getTime() - ms) } : {}),
        },
      },
    );
  }
}

/** Whether a run of the account is queued (the planner queued one and no run settled since). */
async function queued(platform: PlatformDoc): Promise<boolean> {
  return ((await t.deps.db.insightCollectors.findOne({ _id: platform._id }))?.queuedAt ?? null) !== null;
}

function snapshotsOf(postId: string) {
  return t.deps.db.postSnapshots.find({ postId }).sort({ slot: 1 }).toArray();
}

const KEYED = ['post_insights', 'insight_members', 'insight_misses'];

/** The reads of the keyed collections among `commands`, as `<collection> <filter>`. */
function keyedReads(commands: CommandStartedEvent[]): { collection: string; filter: Record<string, unknown> }[] {
  const reads = [];
  for (const { commandName, command } of commands) {
    const collection = String(command[commandName]);
    if (!KEYED.includes(collection)) continue;
    // Only finds read these collections: no count, aggregate or distinct over them.
    expect(commandName).toMatch(/^(find|insert|update|delete)$/);
    if (commandName === 'find') reads.push({ collection, filter: command.filter as Record<string, unknown> });
  }
  return reads;
}

/** Every read is one `_id` equality on a string id. */
function expectIdLookups(reads: { collection: string; filter: Record<string, unknown> }[]): void {
  for (const read of reads) {
    expect({ collection: read.collection, keys: Object.keys(read.filter) }).toEqual({
      collection: read.collection,
      keys: ['_id'],
    });
    expect(typeof read.filter._id).toBe('string');
  }
}

describe('collection reads', () => {
  it('finds posts by `_id` lookups only, in a planner pass and in a run, round after round', async () => {
    const platform = await connected();
    // Other accounts' records (one final, one collecting) are never read.
    const other = await connected();
    await published(other, 2);
    const postIds = await published(platform, 3);
    const watched = await watchCommands(t);
    const deps: CoreDeps = { ...t.deps, db: watched.db };
    try {
      for (let round = 0; round < 2; round += 1) {
        watched.commands.length = 0;
        await planCollection(deps);
        expect(await queued(platform)).toBe(true);
        const planned = keyedReads(watched.commands);
        expect(planned.map((read) => read.collection)).not.toContain('post_insights');
        expectIdLookups(planned);

        watched.commands.length = 0;
        expect(await collectAccount(deps, platform._id)).toMatchObject({ snapshots: 3, stopped: null });
        const ran = keyedReads(watched.commands);
        expect(ran.filter((read) => read.collection === 'insight_members').length).toBeGreaterThanOrEqual(4);
        expect(ran.filter((read) => read.collection === 'post_insights').length).toBeGreaterThanOrEqual(3);
        expectIdLookups(ran);
        // The other account's run settles it too, so the next round queues only what is due.
        await collectAccount(t.deps, other._id);
        await age(postIds, HOUR_MS);
      }
    } finally {
      await watched.close();
    }
    for (const postId of postIds) expect((await snapshotsOf(postId)).map((s) => s.slot)).toEqual([0, 1]);
  }, 120_000);

  it('queues nothing when no post is due and none was added since the last run', async () => {
    const platform = await connected();
    await published(platform, 1);
    await collectAccount(t.deps, platform._id);
    const state = (await t.deps.db.insightCollectors.findOne({ _id: platform._id }))!;
    expect(state).toMatchObject({ walkFrom: 0, walkedTo: 1, queuedAt: null });
    expect(state.dueAt!.getTime()).toBeGreaterThan(Date.now() + HOUR_MS - 5 * 60_000);
    await planCollection(t.deps);
    expect(await queued(platform)).toBe(false);
  }, 60_000);

  it('gives a post opened while a run is in progress its first snapshot within 5 minutes', async () => {
    const platform = await connected();
    const [firstId] = await published(platform, 1);
    const [laterRelease] = await postsOnTikTok(f, t.deps, platform, image, 1);
    // The first post's published event queued the account's run.
    expect(await queued(platform)).toBe(true);
    // The run walks the members, then the post is published (its event's request finds a run queued).
    let laterId: string | undefined;
    const deps: CoreDeps = {
      ...t.deps,
      jobs: {
        ...t.deps.jobs,
        afterPublishing: async (work) => {
          const result = await t.deps.jobs.afterPublishing(work);
          if (!laterId) {
            laterId = (await publishPost(t.deps, tenant, platform._id, { releaseId: laterRelease! }))._id;
            expect(await requestCollection(t.deps, platform._id)).toBe(false);
          }
          return result;
        },
      },
    };
    expect(await collectAccount(deps, platform._id)).toMatchObject({ snapshots: 1 });
    expect(await snapshotsOf(laterId!)).toEqual([]);
    expect((await snapshotsOf(firstId!)).map((s) => s.slot)).toEqual([0]);

    // The planner's next pass sees the member past the run's walk and queues a run, which takes slot 0.
    await planCollection(t.deps);
    expect(await queued(platform)).toBe(true);
    expect(await collectAccount(t.deps, platform._id)).toMatchObject({ snapshots: 1 });
    const [first] = await snapshotsOf(laterId!);
    const record = (await t.deps.db.postInsights.findOne({ _id: laterId! }))!;
    expect(first!.slot).toBe(0);
    expect(first!.takenAt.getTime() - record.publishedAt.getTime()).toBeLessThan(FIRST_SNAPSHOT_WITHIN_MS);
  }, 60_000);

  it("takes a late release's first snapshot once TikTok gives the post's id", async () => {
    const platform = await connected();
    const [releaseId, healedRelease] = await postsOnTikTok(f, t.deps, platform, image, 2);
    const withheld = await publishPost(t.deps, tenant, platform._id, { releaseId: null });
    const crashed = await publishPost(t.deps, tenant, platform._id, { releaseId: null });
    expect(await collectAccount(t.deps, platform._id)).toMatchObject({ snapshots: 0, missed: 0 });
    // Withheld: the account is looked at again at the next slot, not every minute.
    await planCollection(t.deps);
    expect(await queued(platform)).toBe(false);

    await recordLateRelease(t.deps, withheld._id, { releaseId: releaseId!, releaseUrl: null });
    await planCollection(t.deps);
    expect(await queued(platform)).toBe(true);
    expect(await collectAccount(t.deps, platform._id)).toMatchObject({ snapshots: 1 });
    expect((await snapshotsOf(withheld._id)).map((s) => s.slot)).toEqual([0]);

    // A release whose follow-up was lost to a crash (the post has its id, the record does not): the run that
    // looks at the withheld record at its next slot copies the id from the post.
    await t.deps.db.posts.updateOne({ _id: crashed._id }, { $set: { releaseId: healedRelease! } });
    expect(await t.deps.db.postInsights.findOne({ _id: crashed._id })).toMatchObject({ releaseId: null });
    await age([withheld._id, crashed._id], HOUR_MS);
    await planCollection(t.deps);
    expect(await queued(platform)).toBe(true);
    expect(await collectAccount(t.deps, platform._id)).toMatchObject({ snapshots: 2 });
    expect(await t.deps.db.postInsights.findOne({ _id: crashed._id })).toMatchObject({ releaseId: healedRelease });
    expect((await snapshotsOf(crashed._id)).map((s) => s.slot)).toEqual([1]);
  }, 60_000);

  it("deletes a post's noted absence with the post", async () => {
    const platform = await connected();
    const gone = await publishPost(t.deps, tenant, platform._id, { releaseId: 'v_never_on_tiktok' });
    const kept = await publishPost(t.deps, tenant, platform._id, { releaseId: 'v_also_never' });
    expect(await collectAccount(t.deps, platform._id)).toMatchObject({ missed: 2 });
    expect(await t.deps.db.insightMisses.findOne({ _id: gone._id })).not.toBeNull();
    await deletePostGroup(t.deps, systemScope(tenant), gone._id);
    expect(await t.deps.db.insightMisses.findOne({ _id: gone._id })).toBeNull();
    expect(await t.deps.db.insightMisses.findOne({ _id: kept._id })).not.toBeNull();
  }, 60_000);
});
