import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, connectRaw, controlCall, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { ANALYTICS_GRANT, publishPost, startMediaHost, type MediaHost } from '../support/tiktok-published.js';

const QUERY = '/v2/video/query/?fields=id,create_time,view_count,like_count,comment_count,share_count';
const HOUR_MS = 3_600_000;

let host: MediaHost;
let f: TikTokFixture;
let url: string;
beforeAll(async () => {
  host = await startMediaHost();
  f = await startTikTokFixture({
    ...host.emulatorOptions,
    rateLimits: { videoInit: 1000, contentInit: 1000, status: 100_000, videoQuery: 5 },
  });
  url = f.emulator.url;
});
afterAll(async () => {
  await f.emulator.stop();
  await host.stop();
});

type Video = Record<string, unknown>;

async function query(token: string, ids: string[], to = url): Promise<Video[]> {
  const answer = await apiCall(to, token, QUERY, { filters: { video_ids: ids } });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json.error.code).toBe('ok');
  return (answer.json.data as { videos: Video[] }).videos;
}

async function control(method: string, path: string, body?: unknown, to = url): Promise<Record<string, unknown>> {
  const answer = await controlCall(to, method, path, body);
  expect(answer.status, path).toBe(200);
  return (await answer.json()) as Record<string, unknown>;
}

describe('POST /v2/video/query/', () => {
  it("answers the caller's public posts among the ids, photos like videos; other ids are simply absent", async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const other = await connectRaw(url, {}, ANALYTICS_GRANT);
    const before = Math.floor(Date.now() / 1000);
    const video = (await publishPost(url, me.token, host, { title: 'Hook one' }))!;
    const photo = (await publishPost(url, me.token, host, { kind: 'photo' }))!;
    const theirs = (await publishPost(url, other.token, host))!;
    const unknown = '7000000000000000001';

    const videos = await query(me.token, [theirs, photo, unknown, video, video]);
    expect(videos.map((v) => v.id)).toEqual([photo, video]);
    for (const v of videos) {
      expect(Object.keys(v).sort()).toEqual(
        ['comment_count', 'create_time', 'id', 'like_count', 'share_count', 'view_count'].sort(),
      );
      expect(v.create_time).toBeGreaterThanOrEqual(before);
      for (const key of ['view_count', 'like_count', 'comment_count', 'share_count']) {
        expect(Number.isInteger(v[key]) && (v[key] as number) >= 0).toBe(true);
      }
    }
    // The ids are JSON strings, as the Video Object documents them.
    const raw = await apiCall(url, me.token, '/v2/video/query/?fields=id,title,share_url,duration', {
      filters: { video_ids: [video] },
    });
    expect(raw.text).toContain(`"id":"${video}"`);
    expect(raw.json.data).toMatchObject({ videos: [{ title: 'Hook one', duration: 8 }] });
    expect(String((raw.json.data as { videos: Video[] }).videos[0]!.share_url)).toMatch(/\/video\/\d{19}$/);
  });

  it('leaves out a post made SELF_ONLY or removed after publishing, and one published privately has no id', async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const hidden = (await publishPost(url, me.token, host))!;
    const removed = (await publishPost(url, me.token, host))!;
    const kept = (await publishPost(url, me.token, host))!;
    expect(await publishPost(url, me.token, host, { privacy: 'SELF_ONLY' })).toBeNull();
    expect((await query(me.token, [hidden, removed, kept])).length).toBe(3);

    expect(await control('PATCH', `/__control/videos/${hidden}`, { privacyLevel: 'SELF_ONLY' })).toMatchObject({
      listed: false,
    });
    await control('PATCH', `/__control/videos/${removed}`, { removed: true });
    expect((await query(me.token, [hidden, removed, kept])).map((v) => v.id)).toEqual([kept]);
  });

  it('answers a pinned count as set, and the curve again once it is unpinned', async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const id = (await publishPost(url, me.token, host))!;
    await control('PATCH', `/__control/videos/${id}`, { viewCount: 12_345, shareCount: 7 });
    const [pinned] = await query(me.token, [id]);
    expect(pinned).toMatchObject({ view_count: 12_345, share_count: 7 });
    await control('PATCH', `/__control/videos/${id}`, { viewCount: null, shareCount: null });
    const state = await control('GET', `/__control/videos/${id}`);
    const curve = await control('GET', `/__control/videos/${id}/curve?ageMinutes=${String(state.ageMinutes)}`);
    expect(state.counts).toEqual(curve.counts);
    expect(state.pinned).toEqual({});
  });

  it('refuses a token without video.list with 401 scope_not_authorized', async () => {
    const me = await connectRaw(url, {}, 'user.info.basic,video.publish,video.upload');
    const answer = await apiCall(url, me.token, QUERY, { filters: { video_ids: ['7000000000000000001'] } });
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ data: {}, error: { code: 'scope_not_authorized' } });
  });

  it('answers 400 invalid_params for more than 20 ids, no ids, no fields or an unknown field', async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const ids = Array.from({ length: 21 }, (_, i) => `70000000000000000${String(i).padStart(2, '0')}`);
    const bad = [
      await apiCall(url, me.token, QUERY, { filters: { video_ids: ids } }),
      await apiCall(url, me.token, QUERY, { filters: { video_ids: [] } }),
      await apiCall(url, me.token, '/v2/video/query/', { filters: { video_ids: ['1'] } }),
      await apiCall(url, me.token, '/v2/video/query/?fields=id,fps', { filters: { video_ids: ['1'] } }),
    ];
    for (const answer of bad) {
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe('invalid_params');
    }
  });

  it('answers 429 rate_limit_exceeded past the per-token limit, and injected faults as configured', async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const body = { filters: { video_ids: ['7000000000000000001'] } };
    for (let i = 0; i < 5; i += 1) expect((await apiCall(url, me.token, QUERY, body)).status).toBe(200);
    const limited = await apiCall(url, me.token, QUERY, body);
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limit_exceeded');

    const faulty = await connectRaw(url, {}, ANALYTICS_GRANT);
    await controlCall(url, 'POST', `/__control/accounts/${faulty.openId}/failures`, {
      endpoint: 'video_query',
      status: 503,
      code: 'internal_error',
    });
    const failed = await apiCall(url, faulty.token, QUERY, body);
    expect(failed.status).toBe(503);
    expect(failed.json.error.code).toBe('internal_error');
    expect((await apiCall(url, faulty.token, QUERY, body)).status).toBe(200);
  });
});

describe('GET /__control/requests', () => {
  it('counts the API requests received by method and path, whatever the answer', async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    const count = async () => {
      const { requests } = (await control('GET', '/__control/requests')) as { requests: Record<string, number> };
      return requests['POST /v2/video/query/'] ?? 0;
    };
    const before = await count();
    await query(me.token, ['7000000000000000002']);
    await apiCall(url, 'not-a-token', QUERY, { filters: { video_ids: ['7000000000000000002'] } });
    expect((await count()) - before).toBe(2);
  });
});

describe("counts over a post's life", () => {
  it('grow along the seeded curve as the post clock moves: fast at first, then flat, never down', async () => {
    const aged = await startTikTokFixture({ ...host.emulatorOptions, statsSeed: 'seed-a' });
    try {
      const me = await connectRaw(aged.emulator.url, {}, ANALYTICS_GRANT);
      const id = (await publishPost(aged.emulator.url, me.token, host))!;
      const seen: { ageMinutes: number; views: number; likes: number }[] = [];
      for (const stepMs of [0, HOUR_MS, 5 * HOUR_MS, 42 * HOUR_MS, 5 * 24 * HOUR_MS, 23 * 24 * HOUR_MS]) {
        await control('POST', '/__control/clock', { advanceMs: stepMs }, aged.emulator.url);
        const [v] = await query(me.token, [id], aged.emulator.url);
        const state = await control('GET', `/__control/videos/${id}`, undefined, aged.emulator.url);
        const age = state.ageMinutes as number;
        // The answer is the curve at the post's age (read just after, so at most a minute later).
        const curve = await control(
          'GET',
          `/__control/videos/${id}/curve?ageMinutes=${age}`,
          undefined,
          aged.emulator.url,
        );
        expect(v!.view_count).toBeLessThanOrEqual((curve.counts as { viewCount: number }).viewCount);
        seen.push({ ageMinutes: age, views: v!.view_count as number, likes: v!.like_count as number });
      }
      expect(seen.map((s) => Math.round(s.ageMinutes / 60))).toEqual([0, 1, 6, 48, 168, 720]);
      for (let i = 1; i < seen.length; i += 1) {
        expect(seen[i]!.views).toBeGreaterThanOrEqual(seen[i - 1]!.views);
        expect(seen[i]!.likes).toBeGreaterThanOrEqual(seen[i - 1]!.likes);
      }
      const [, , sixHours, twoDays, week, month] = seen.map((s) => s.views);
      expect(sixHours!).toBeGreaterThan(0);
      // Most of a post's views come early: more in its first 6 hours than from day 2 to day 30.
      expect(sixHours!).toBeGreaterThan(month! - twoDays!);
      expect(month! - week!).toBeLessThanOrEqual(week! - twoDays!);
      expect(await control('GET', '/__control/clock', undefined, aged.emulator.url)).toMatchObject({
        offsetMs: 720 * HOUR_MS,
      });
    } finally {
      await aged.emulator.stop();
    }
  }, 60_000);

  it('are the same for the same seed and post id, and differ with another seed', async () => {
    const same = await startTikTokFixture({ statsSeed: 'postdeck' });
    const other = await startTikTokFixture({ statsSeed: 'another' });
    try {
      const id = '7312345678901234567';
      const at = (to: string) => control('GET', `/__control/videos/${id}/curve?ageMinutes=2880`, undefined, to);
      const mine = await at(url);
      expect(await at(same.emulator.url)).toEqual(mine);
      expect(await at(other.emulator.url)).not.toEqual(mine);
      expect((mine.counts as { viewCount: number }).viewCount).toBeGreaterThanOrEqual(190);
    } finally {
      await same.emulator.stop();
      await other.emulator.stop();
    }
  });

  it('keep their pins, removals and the post clock across a restart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tiktok-emu-counts-'));
    const dataFile = path.join(dir, 'tiktok.json');
    try {
      const first = await startTikTokFixture({ ...host.emulatorOptions, dataFile });
      const me = await connectRaw(first.emulator.url, {}, ANALYTICS_GRANT);
      const pinned = (await publishPost(first.emulator.url, me.token, host))!;
      const removed = (await publishPost(first.emulator.url, me.token, host))!;
      await control('PATCH', `/__control/videos/${pinned}`, { likeCount: 42 }, first.emulator.url);
      await control('PATCH', `/__control/videos/${removed}`, { removed: true }, first.emulator.url);
      await control('POST', '/__control/clock', { advanceMs: 48 * HOUR_MS }, first.emulator.url);
      await first.emulator.stop();

      const second = await startTikTokFixture({ ...host.emulatorOptions, dataFile });
      try {
        const base = second.emulator.url;
        expect(await control('GET', '/__control/clock', undefined, base)).toMatchObject({ offsetMs: 48 * HOUR_MS });
        const videos = await query(me.token, [pinned, removed], base);
        expect(videos.map((v) => v.id)).toEqual([pinned]);
        expect(videos[0]).toMatchObject({ like_count: 42 });
        expect(videos[0]!.view_count).toBeGreaterThan(0);
      } finally {
        await second.emulator.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses to move the post clock backwards', async () => {
    const answer = await controlCall(url, 'POST', '/__control/clock', { advanceMs: -1 });
    expect(answer.status).toBe(400);
  });
});

describe('GET /v2/user/info/ stats', () => {
  it("answers the account's counters as the control API set them, and scope_permission_missed without user.info.stats", async () => {
    const me = await connectRaw(url, {}, ANALYTICS_GRANT);
    await controlCall(url, 'PATCH', `/__control/accounts/${me.openId}`, {
      followerCount: 1234,
      followingCount: 56,
      likesCount: 7890,
      videoCount: 12,
    });
    const answer = await fetch(`${url}/v2/user/info/?fields=follower_count,following_count,likes_count,video_count`, {
      headers: { authorization: `Bearer ${me.token}` },
    });
    expect(await answer.json()).toMatchObject({
      data: { user: { follower_count: 1234, following_count: 56, likes_count: 7890, video_count: 12 } },
    });

    const old = await connectRaw(url, {}, 'user.info.basic,video.publish,video.upload');
    const refused = await fetch(`${url}/v2/user/info/?fields=follower_count`, {
      headers: { authorization: `Bearer ${old.token}` },
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'scope_permission_missed' } });
  });
});
