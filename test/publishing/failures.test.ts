import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOME_UNCONFIRMED_TEXT, OUTCOME_UNKNOWN_TEXT } from '../../src/core/publishing/error-texts.js';
import { FAIL_REASON_TEXTS, INIT_REFUSAL_TEXTS } from '../../src/core/providers/tiktok/publish/error-texts.js';
import { tunePublishing } from '../../src/core/publishing/settings.js';
import { makeJpeg } from '../support/media.js';
import { buildMp4OfSize } from '../support/video.js';
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

// Every emulator failure switch against the engine, with the documented outcome: what is retried, what ends in
// ERROR (and in which words), what is refunded, and that TikTok never receives a post twice.

let w: PublishingWorld;
beforeAll(async () => {
  w = await startWorld();
}, 60_000);
afterAll(async () => {
  await w.close();
});

async function smallVideo() {
  return storeMedia(w, buildMp4OfSize(200_000));
}

describe('failures at the init', SLOW, () => {
  it('retries a 429 as a new attempt and posts once', async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}/failures`, {
      endpoint: 'video_init',
      status: 429,
      code: 'rate_limit_exceeded',
    });
    const post = await queuePost(w, platform, [await smallVideo()]);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(2);
    expect(tiktok.posts).toHaveLength(1);
    const attempts = await attemptsOf(w, post._id);
    expect(attempts.map((a) => a.phase)).toEqual(['created_nothing', 'init_answered']);
    expect(attempts[0]!.events.map((e) => e.detail).join(' ')).toContain('HTTP 429 rate_limit_exceeded');
    // The retry waited at least the rate-limit pause.
    expect(attempts[1]!.claimedAt.getTime() - attempts[0]!.claimedAt.getTime()).toBeGreaterThanOrEqual(150);
    expect(await capSpent(w, post)).toBe(true);
  });

  it('gives up after the last attempt when every init is rate limited, and refunds', async () => {
    const restore = tunePublishing({ maxAttempts: 3 });
    try {
      const { openId, platform } = await connectCreator(w);
      await control(w, `/accounts/${openId}/failures`, {
        endpoint: 'video_init',
        status: 429,
        code: 'rate_limit_exceeded',
        times: 3,
      });
      const post = await queuePost(w, platform, [await smallVideo()]);
      const done = await settled(w, post._id);
      expect(done.state).toBe('ERROR');
      expect(done.errorText).toMatch(/rate limit \(3 attempts\); nothing was posted/);
      expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(3);
      expect((await attemptsOf(w, post._id)).map((a) => a.phase)).toEqual(Array(3).fill('created_nothing'));
      expect(await capSpent(w, post)).toBe(false);
    } finally {
      restore();
    }
  });

  it('ends a 5xx on the init as "outcome unknown", never sends it again and keeps the cap unit', async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}/failures`, { endpoint: 'video_init', status: 500, code: 'internal_error' });
    const post = await queuePost(w, platform, [await smallVideo()]);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({
      state: 'ERROR',
      errorText: OUTCOME_UNKNOWN_TEXT,
    });
    const attempts = await attemptsOf(w, post._id);
    expect(attempts.map((a) => a.phase)).toEqual(['outcome_unknown']);
    expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(1);
    expect(await capSpent(w, post)).toBe(true);
  });

  it.each([
    ['privacy_level_option_mismatch', 403],
    ['unaudited_client_can_only_post_to_private_accounts', 403],
    ['url_ownership_unverified', 403],
  ])('ends a %s refusal in ERROR with its plain text, refunded, not retried', async (code, status) => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}/failures`, { endpoint: 'video_init', status, code });
    const post = await queuePost(w, platform, [await smallVideo()]);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({
      state: 'ERROR',
      errorText: INIT_REFUSAL_TEXTS[code],
    });
    expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(1);
    expect((await attemptsOf(w, post._id)).map((a) => a.phase)).toEqual(['created_nothing']);
    expect(await capSpent(w, post)).toBe(false);
  });

  it("ends in ERROR with TikTok's reason when the creator cannot post now, before any init, refunded", async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}`, { canPost: false, cannotPostReason: 'reached_active_user_cap' }, 'PATCH');
    const post = await queuePost(w, platform, [await smallVideo()]);

    const done = await settled(w, post._id);
    expect(done.state).toBe('ERROR');
    expect(done.errorText).toMatch(/cannot post now \(reached_active_user_cap\)/);
    expect(done.errorText).toMatch(/Nothing was posted\.$/);
    expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(0);
    expect(await capSpent(w, post)).toBe(false);
  });

  it('asks for a reconnect when the authorization was revoked, refunded, nothing sent', async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}/tokens`, { action: 'revoke' });
    const post = await queuePost(w, platform, [await smallVideo()]);

    const done = await settled(w, post._id);
    expect(done.state).toBe('ERROR');
    expect(done.errorText).toMatch(/^Reconnect this TikTok account/);
    expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(0);
    expect(await capSpent(w, post)).toBe(false);
  });
});

describe('after the init', SLOW, () => {
  it.each(['spam_risk_text', 'duration_check_failed', 'auth_removed'] as const)(
    'ends a FAILED publish (%s) in ERROR with plain words, without a refund',
    async (failReason) => {
      const { openId, platform } = await connectCreator(w);
      await control(w, `/accounts/${openId}`, { nextPublish: { failReason } }, 'PATCH');
      const post = await queuePost(w, platform, [await smallVideo()]);

      const done = await settled(w, post._id);
      expect({ state: done.state, errorText: done.errorText }).toEqual({
        state: 'ERROR',
        errorText: FAIL_REASON_TEXTS[failReason],
      });
      const tiktok = await emulatorPosts(w, openId);
      expect(tiktok.initRequests[openId]).toBe(1);
      expect(tiktok.posts[0]!.failReason).toBe(failReason);
      expect(await capSpent(w, post)).toBe(true);
    },
  );

  it('publishes again when TikTok could not download the photos, and posts once', async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}`, { nextPublish: { failReason: 'photo_pull_failed' } }, 'PATCH');
    const post = await queuePost(w, platform, [await storeMedia(w, await makeJpeg(320, 240))]);

    const done = await settled(w, post._id);
    expect({ state: done.state, errorText: done.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
    const tiktok = await emulatorPosts(w, openId);
    expect(tiktok.initRequests[openId]).toBe(2);
    expect(tiktok.posts.map((p) => p.failReason ?? null)).toEqual(['photo_pull_failed', null]);
    expect(done.releaseId).toBe(tiktok.posts[1]!.postIds[0]);
    const attempts = await attemptsOf(w, post._id);
    expect(attempts.map((a) => a.phase)).toEqual(['created_nothing', 'init_answered']);
    expect(attempts[0]!.events.map((e) => e.detail).join(' ')).toContain('photo_pull_failed');
    expect(await capSpent(w, post)).toBe(true);
  });

  it('ends a pull TikTok could not download in ERROR, refunded, once the attempts are used up', async () => {
    const restore = tunePublishing({ maxAttempts: 1 });
    try {
      const { openId, platform } = await connectCreator(w);
      await control(w, `/accounts/${openId}`, { nextPublish: { failReason: 'photo_pull_failed' } }, 'PATCH');
      const post = await queuePost(w, platform, [await storeMedia(w, await makeJpeg(320, 240))]);

      const done = await settled(w, post._id);
      expect({ state: done.state, errorText: done.errorText }).toEqual({
        state: 'ERROR',
        errorText: FAIL_REASON_TEXTS.photo_pull_failed,
      });
      expect((await emulatorPosts(w, openId)).initRequests[openId]).toBe(1);
      expect(await capSpent(w, post)).toBe(false);
    } finally {
      restore();
    }
  });

  it('publishes with the profile URL while moderation withholds the id, then records the id', async () => {
    const { openId, platform } = await connectCreator(w);
    await control(w, `/accounts/${openId}`, { nextPublish: { moderationPolls: 4 } }, 'PATCH');
    const post = await queuePost(w, platform, [await smallVideo()]);

    const early = await settled(w, post._id);
    expect(early).toMatchObject({
      state: 'PUBLISHED',
      releaseId: null,
      releaseUrl: `https://www.tiktok.com/@${platform.displayHandle}`,
    });
    const late = await waitFor('the post id', async () => {
      const current = await w.t.deps.db.posts.findOne({ _id: post._id });
      return current?.releaseId ? current : undefined;
    });
    const tiktok = await emulatorPosts(w, openId);
    expect(late.state).toBe('PUBLISHED');
    expect(late.releaseId).toBe(tiktok.posts[0]!.postIds[0]);
    expect(late.releaseUrl).toBe(`https://www.tiktok.com/@${platform.displayHandle}/video/${late.releaseId}`);
    expect(tiktok.initRequests[openId]).toBe(1);
  });

  it('ends in ERROR "outcome unconfirmed" when TikTok reports no final status within the limit', async () => {
    const restore = tunePublishing({ terminalWithinMs: 1_500 });
    try {
      const { openId, platform } = await connectCreator(w);
      await control(w, `/accounts/${openId}`, { nextPublish: { processingMs: 600_000 } }, 'PATCH');
      const post = await queuePost(w, platform, [await smallVideo()]);

      const done = await settled(w, post._id);
      expect({ state: done.state, errorText: done.errorText }).toEqual({
        state: 'ERROR',
        errorText: OUTCOME_UNCONFIRMED_TEXT,
      });
      const events = (await attemptsOf(w, post._id))[0]!.events.map((e) => e.what);
      expect(events).toContain('outcome_unconfirmed');
      expect(await capSpent(w, post)).toBe(true);
    } finally {
      restore();
    }
  });
});
