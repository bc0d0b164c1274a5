import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TikTokApiError } from '../../src/core/providers/tiktok/errors.js';
import { TikTokHttp } from '../../src/core/providers/tiktok/http.js';
import { TIKTOK_RATE_LIMITS } from '../../src/core/providers/tiktok/rate-limiter.js';
import { getUserStats } from '../../src/core/providers/tiktok/user-info.js';
import { queryVideoStats } from '../../src/core/providers/tiktok/video-query.js';
import { createLogger } from '../../src/logger.js';
import { connectRaw, controlCall, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { ANALYTICS_GRANT, publishPost, startMediaHost, type MediaHost } from '../support/tiktok-published.js';

const OLD_GRANT = 'user.info.basic,user.info.profile,video.publish,video.upload';

let host: MediaHost;
let f: TikTokFixture;
let url: string;
/** Every request the client sent, by path. */
const sent: string[] = [];
let http: TikTokHttp;
beforeAll(async () => {
  host = await startMediaHost();
  f = await startTikTokFixture({
    ...host.emulatorOptions,
    rateLimits: { videoInit: 1000, contentInit: 1000, status: 100_000 },
  });
  url = f.emulator.url;
  const counting: typeof fetch = (input, init) => {
    sent.push(new URL(input instanceof Request ? input.url : input).pathname);
    return fetch(input, init);
  };
  http = new TikTokHttp(f.config, createLogger({ level: 'silent' }), { baseDelayMs: 5, fetch: counting });
});
afterAll(async () => {
  await f.emulator.stop();
  await host.stop();
});

async function rejection(promise: Promise<unknown>): Promise<TikTokApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TikTokApiError);
  return error as TikTokApiError;
}

describe('queryVideoStats', () => {
  it("returns the numbers of the creator's own posts, photos included; absent ids are left out", async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const other = await connectRaw(url, {}, ANALYTICS_GRANT);
    const video = (await publishPost(url, me.token, host))!;
    const photo = (await publishPost(url, me.token, host, { kind: 'photo' }))!;
    const theirs = (await publishPost(url, other.token, host))!;
    await controlCall(url, 'PATCH', `/__control/videos/${video}`, {
      viewCount: 1500,
      likeCount: 120,
      commentCount: 9,
      shareCount: 4,
    });

    const stats = await queryVideoStats(http, me.token, [video, photo, theirs]);
    expect(stats.map((s) => s.id).sort()).toEqual([photo, video].sort());
    const published = (await (await controlCall(url, 'GET', `/__control/videos/${video}`)).json()) as {
      publishId: string;
    };
    const post = (await (await controlCall(url, 'GET', `/__control/posts/${published.publishId}`)).json()) as {
      settledAt: string;
    };
    expect(stats.find((s) => s.id === video)).toEqual({
      id: video,
      createTime: Math.floor(Date.parse(post.settledAt) / 1000),
      viewCount: 1500,
      likeCount: 120,
      commentCount: 9,
      shareCount: 4,
    });
    // The 19-digit id survives exactly (a JS number would round it).
    expect(video).toMatch(/^\d{19}$/);
  });

  it('refuses more than 20 ids before any request, and sends none for no ids', async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const before = sent.length;
    const ids = Array.from({ length: 21 }, (_, i) => `71000000000000000${String(i).padStart(2, '0')}`);
    const refused = await rejection(queryVideoStats(http, me.token, ids));
    expect(refused).toMatchObject({ tiktokCode: 'refused_by_client', code: 'invalid_request', source: 'client' });
    expect(await queryVideoStats(http, me.token, [])).toEqual([]);
    expect(sent.length).toBe(before);
    // Twenty is allowed, and a repeated id counts once.
    expect(await queryVideoStats(http, me.token, [...ids.slice(0, 20), ids[0]!])).toEqual([]);
    expect(sent.slice(before)).toEqual(['/v2/video/query/']);
  });

  it('throws scope_not_authorized for a token granted before video.list was asked for', async () => {
    const old = await connectRaw(url, {}, OLD_GRANT);
    const error = await rejection(queryVideoStats(http, old.token, ['7000000000000000001']));
    expect(error).toMatchObject({ tiktokCode: 'scope_not_authorized', httpStatus: 401, code: 'provider_error' });
  });

  it('throws rate_limit_exceeded (rate_limited, retry after a minute) when 429s outlast the retries', async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    await controlCall(url, 'POST', `/__control/accounts/${me.openId}/failures`, {
      endpoint: 'video_query',
      status: 429,
      code: 'rate_limit_exceeded',
      times: 4,
    });
    const before = sent.length;
    const error = await rejection(queryVideoStats(http, me.token, ['7000000000000000001']));
    expect(error).toMatchObject({ tiktokCode: 'rate_limit_exceeded', httpStatus: 429, code: 'rate_limited' });
    expect(error.retryAfterSeconds).toBe(60);
    // A read is retried: one call and three retries.
    expect(sent.length - before).toBe(4);
  });

  it("retries a 5xx and then answers, and counts under TikTok's documented 600 a minute", async () => {
    expect(TIKTOK_RATE_LIMITS.videoQuery).toBe(600);
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const id = (await publishPost(url, me.token, host))!;
    await controlCall(url, 'POST', `/__control/accounts/${me.openId}/failures`, {
      endpoint: 'video_query',
      status: 500,
      code: 'internal_error',
    });
    expect((await queryVideoStats(http, me.token, [id])).map((s) => s.id)).toEqual([id]);
  });
});

describe('getUserStats', () => {
  it("returns the account's follower, following, likes and video counts", async () => {
    const me = await connectRaw(
      url,
      { followerCount: 4200, followingCount: 17, likesCount: 98_000, videoCount: 31 },
      ANALYTICS_GRANT,
    );
    expect(await getUserStats(http, me.token)).toEqual({
      followerCount: 4200,
      followingCount: 17,
      likesCount: 98_000,
      videoCount: 31,
    });
  });

  it('throws scope_not_authorized for a token without user.info.stats', async () => {
    const old = await connectRaw(url, {}, OLD_GRANT);
    const error = await rejection(getUserStats(http, old.token));
    expect(error).toMatchObject({ tiktokCode: 'scope_not_authorized', httpStatus: 400 });
    expect(error.message).toContain('scope_permission_missed');
  });

  it('throws rate_limit_exceeded on 429s', async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    await controlCall(url, 'POST', `/__control/accounts/${me.openId}/failures`, {
      endpoint: 'user_info',
      status: 429,
      code: 'rate_limit_exceeded',
      times: 4,
    });
    expect(await rejection(getUserStats(http, me.token))).toMatchObject({
      tiktokCode: 'rate_limit_exceeded',
      code: 'rate_limited',
    });
  });
});
