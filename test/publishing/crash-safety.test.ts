import { randomUUID } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostDoc } from '../../src/core/posts/documents.js';
import type { PublishAttemptDoc } from '../../src/core/publishing/documents.js';
import { publicUrlOf } from '../../src/core/media/view.js';
import { withTikTokToken } from '../../src/core/providers/tiktok/connect/token-access.js';
import { initPhotoPost } from '../../src/core/providers/tiktok/publish.js';
import { OUTCOME_UNKNOWN_TEXT, ROOT_FAILED_TEXT } from '../../src/core/publishing/error-texts.js';
import { NO_THREAD_REPLIES_TEXT } from '../../src/core/providers/tiktok/publish/error-texts.js';
import { publishPostJob, sweepPostsJob } from '../../src/core/publishing/jobs.js';
import { buildMp4OfSize } from '../support/video.js';
import { makeJpeg } from '../support/media.js';
import {
  attemptsOf,
  capSpent,
  connectCreator,
  control,
  emulatorPosts,
  queuePost,
  settled,
  SLOW,
  startWorld,
  storeMedia,
  waitFor,
  type PublishingWorld,
} from './support.js';
import { tiktokHttpOf } from '../../src/core/providers/tiktok/http-of.js';

// A worker that died mid-publish, lost jobs, jobs run twice, stale jobs and thread replies: the sweeper and the
// claims must settle every post without TikTok ever receiving a post twice.

let w: PublishingWorld;
beforeAll(async () => {
  w = await startWorld();
}, 60_000);
afterAll(async () => {
  await w.close();
});

const PAST = () => new Date(Date.now() - 5_000);

/** A PUBLISHING post with attempt #1 as a dead worker left it (its lease expired). */
async function stalled(
  platform: Parameters<typeof queuePost>[1],
  media: Parameters<typeof queuePost>[2],
  attempt: Partial<PublishAttemptDoc>,
): Promise<PostDoc> {
  const post = await queuePost(w, platform, media, { state: 'PUBLISHING', enqueue: false });
  await w.t.deps.db.publishAttempts.insertOne({
    _id: `${post._id}#1`,
    postId: post._id,
    workspaceId: post.workspaceId,
    n: 1,
    worker: randomUUID(),
    claimedAt: new Date(),
    leaseExpiresAt: PAST(),
    phase: 'claimed',
    publishId: null,
    events: [],
    ...attempt,
  });
  return post;
}

/**
 * Waits until the queue finished the job: a due task (publish, poll) is marked done once it ran; an Agenda
 * job (the sweep) is removed when done, or records its end when it failed.
 */
async function jobFinished(jobId: string): Promise<void> {
  await waitFor(`job ${jobId} to finish`, async () => {
    if (!ObjectId.isValid(jobId)) return (await w.t.deps.db.dueTasks.findOne({ _id: jobId }))?.done ? true : undefined;
    const job = await w.t.db.collection('agendaJobs').findOne({ _id: new ObjectId(jobId) });
    return job === null || job.lastFinishedAt ? true : undefined;
  });
}

function sweep(): Promise<string> {
  return w.t.deps.jobs.enqueue(sweepPostsJob, {});
}

describe('the sweeper after a worker died', SLOW, () => {
  it('ends an attempt that sent its init without an answer in ERROR "outcome unknown", sending nothing', async () => {
    const { openId, platform } = await connectCreator(w);
    const post = await stalled(platform, [await storeMedia(w, buildMp4OfSize(200_000))], { phase: 'init_sent' });
    await sweep();

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({
      state: 'ERROR',
      errorText: OUTCOME_UNKNOWN_TEXT,
    });
    expect((await attemptsOf(w, post._id)).map((a) => a.phase)).toEqual(['outcome_unknown']);
    expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(0);
    expect(await capSpent(w, post)).toBe(true);
  });

  it('resumes status polling of an attempt that stored its publish_id', async () => {
    const { openId, platform } = await connectCreator(w);
    const image = await storeMedia(w, await makeJpeg(320, 240));
    // What the dead worker had sent: a real photo init at TikTok.
    const { publishId } = await withTikTokToken(w.t.deps, platform, (token) =>
      initPhotoPost(tiktokHttpOf(w.t.deps), token, {
        postMode: 'DIRECT_POST',
        postInfo: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
        photoImages: [publicUrlOf(image, w.t.deps.media.publicBaseUrl)],
        photoCoverIndex: 0,
      }),
    );
    const post = await stalled(platform, [image], { phase: 'init_answered', publishId });
    await sweep();

    const done = await settled(w, post._id);
    const tiktok = await emulatorPosts(w, openId);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect(done.releaseId).toBe(tiktok.posts[0]!.postIds[0]);
    expect(done.releaseUrl).toBe(`https://www.tiktok.com/@${platform.displayHandle}/photo/${done.releaseId}`);
    expect(tiktok.initRequests[openId]).toBe(1);
    const events = (await attemptsOf(w, post._id))[0]!.events.map((e) => e.what);
    expect(events).toContain('polling_resumed');
  });

  it('retries an attempt that was only claimed, as attempt #2, and posts once', async () => {
    const { openId, platform } = await connectCreator(w);
    const post = await stalled(platform, [await storeMedia(w, buildMp4OfSize(200_000))], { phase: 'claimed' });
    await sweep();

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    expect((await attemptsOf(w, post._id)).map((a) => a.phase)).toEqual(['created_nothing', 'init_answered']);
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(tiktok.posts).toHaveLength(1);
  });

  it('leaves an attempt whose lease is still running alone', async () => {
    const { platform } = await connectCreator(w);
    const post = await queuePost(w, platform, [await storeMedia(w, buildMp4OfSize(200_000))], {
      state: 'PUBLISHING',
      enqueue: false,
    });
    await w.t.deps.db.publishAttempts.insertOne({
      _id: `${post._id}#1`,
      postId: post._id,
      workspaceId: post.workspaceId,
      n: 1,
      worker: randomUUID(),
      claimedAt: new Date(),
      leaseExpiresAt: new Date(Date.now() + 60_000),
      phase: 'init_sent',
      publishId: null,
      events: [],
    });
    const jobId = await sweep();
    await jobFinished(jobId);
    expect((await w.t.deps.db.posts.findOne({ _id: post._id }))!.state).toBe('PUBLISHING');
    expect((await attemptsOf(w, post._id))[0]!.phase).toBe('init_sent');
  });

  it('enqueues a queued post whose job was lost', async () => {
    const { openId, platform } = await connectCreator(w);
    const post = await queuePost(w, platform, [await storeMedia(w, buildMp4OfSize(200_000))], {
      dueAt: new Date(Date.now() - 5 * 60_000),
      enqueue: false,
    });
    await sweep();
    const done = await settled(w, post._id);
    expect(done.state).toBe('PUBLISHED');
    expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(1);
  });
});

describe('claims', SLOW, () => {
  it('publishes once when the publish job runs several times at once', async () => {
    const { openId, platform } = await connectCreator(w);
    const post = await queuePost(w, platform, [await storeMedia(w, buildMp4OfSize(200_000))]);
    const duplicates = await Promise.all(
      [1, 2, 3, 4].map(() => w.t.deps.jobs.enqueue(publishPostJob, { postId: post._id })),
    );

    const done = await settled(w, post._id);
    expect(done.state).toBe('PUBLISHED');
    // Every duplicate ran to its end before counting.
    for (const jobId of duplicates) await jobFinished(jobId);
    expect(await attemptsOf(w, post._id)).toHaveLength(1);
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(1);
    expect(tiktok.posts).toHaveLength(1);
  });

  it('ignores a job for a post that is not due yet (it was rescheduled)', async () => {
    const { openId, platform } = await connectCreator(w);
    const post = await queuePost(w, platform, [await storeMedia(w, buildMp4OfSize(200_000))], {
      dueAt: new Date(Date.now() + 60 * 60_000),
      enqueue: false,
    });
    const jobId = await w.t.deps.jobs.enqueue(publishPostJob, { postId: post._id });
    await jobFinished(jobId);
    expect((await w.t.deps.db.posts.findOne({ _id: post._id }))!.state).toBe('QUEUE');
    expect(await attemptsOf(w, post._id)).toHaveLength(0);
    expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(0);
  });
});

describe('thread replies', SLOW, () => {
  async function withReplies(delays: number[]) {
    const { openId, platform } = await connectCreator(w);
    const root = await queuePost(w, platform, [await storeMedia(w, buildMp4OfSize(200_000))], { enqueue: false });
    const children: PostDoc[] = [];
    for (const delay of delays) {
      const child: PostDoc = {
        ...root,
        _id: randomUUID(),
        parentPostId: root._id,
        content: `reply after ${delay} min`,
        mediaIds: [],
        delayInMinutes: delay,
        dueAt: null,
        capSpend: null,
        replyIds: [],
      };
      await w.t.deps.db.posts.insertOne(child);
      children.push(child);
    }
    await w.t.deps.db.posts.updateOne({ _id: root._id }, { $set: { replyIds: children.map((c) => c._id) } });
    return { openId, platform, root, children };
  }

  it('schedules each reply at the root publish time + its delay; a TikTok reply itself is refused', async () => {
    const { openId, root, children } = await withReplies([0, 30]);
    await w.t.deps.jobs.enqueue(publishPostJob, { postId: root._id });

    const published = await settled(w, root._id);
    expect(published.state).toBe('PUBLISHED');
    const now = await settled(w, children[0]!._id);
    expect({ state: now.state, errorText: now.errorText }).toEqual({
      state: 'ERROR',
      errorText: NO_THREAD_REPLIES_TEXT,
    });
    const later = (await w.t.deps.db.posts.findOne({ _id: children[1]!._id }))!;
    expect(later.state).toBe('QUEUE');
    expect(later.dueAt!.getTime() - published.updatedAt.getTime()).toBe(30 * 60_000);
    expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(1);
    expect((await attemptsOf(w, children[0]!._id)).map((a) => a.phase)).toEqual(['created_nothing']);
  });

  it('ends the replies in ERROR when the root ends in ERROR', async () => {
    const { openId, root, children } = await withReplies([5]);
    await control(w, `/accounts/${openId}`, { canPost: false }, 'PATCH');
    await w.t.deps.jobs.enqueue(publishPostJob, { postId: root._id });

    expect((await settled(w, root._id)).state).toBe('ERROR');
    const reply = await settled(w, children[0]!._id, ['ERROR']);
    expect({ state: reply.state, errorText: reply.errorText }).toEqual({ state: 'ERROR', errorText: ROOT_FAILED_TEXT });
  });
});
