import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, connectRaw, controlCall, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

const MIB = 1024 * 1024;
const VIDEO = '/v2/post/publish/video/init/';
const INBOX = '/v2/post/publish/inbox/video/init/';
const CONTENT = '/v2/post/publish/content/init/';
const STATUS = '/v2/post/publish/status/fetch/';
const CANCEL = '/v2/post/publish/cancel/';
// Port 9 refuses connections, so the background pulls these inits start fail fast.
const PULL_BASE = 'https://127.0.0.1:9/media/';

const upload = (size = 1000, chunk = size, count = 1) => ({
  source: 'FILE_UPLOAD',
  video_size: size,
  chunk_size: chunk,
  total_chunk_count: count,
});
const directVideo = (postInfo: Record<string, unknown> = {}, sourceInfo: unknown = upload()) => ({
  post_info: { privacy_level: 'SELF_ONLY', title: 'hello #tag', ...postInfo },
  source_info: sourceInfo,
});
const photos = (mode = 'DIRECT_POST', info: Record<string, unknown> = {}, source: Record<string, unknown> = {}) => ({
  media_type: 'PHOTO',
  post_mode: mode,
  post_info: { privacy_level: 'SELF_ONLY', title: 't', ...info },
  source_info: { source: 'PULL_FROM_URL', photo_images: [`${PULL_BASE}a.jpg`], photo_cover_index: 0, ...source },
});

let f: TikTokFixture;
let url: string;
const fast = { videoInit: 1000, inboxInit: 1000, contentInit: 1000, status: 1000 };
beforeAll(async () => {
  f = await startTikTokFixture({
    rateLimits: fast,
    verifiedUrlPrefixes: [PULL_BASE, 'example.net'],
    pullTimeoutMs: 2000,
  });
  url = f.emulator.url;
});
afterAll(async () => {
  await f.emulator.stop();
});

async function expectRefusal(
  token: string,
  path: string,
  body: unknown,
  status: number,
  code: string,
  base = url,
): Promise<void> {
  const answer = await apiCall(base, token, path, body);
  expect({ status: answer.status, code: answer.json.error.code }).toEqual({ status, code });
  expect(answer.json.error).toMatchObject({
    message: expect.any(String),
    log_id: expect.stringMatching(/^\d{14}[0-9A-F]+$/),
  });
}

describe('init success shapes', () => {
  it('video/init FILE_UPLOAD answers a v_pub_file id and an upload_url on this server', async () => {
    const { token } = await connectRaw(url);
    const answer = await apiCall(url, token, VIDEO, directVideo());
    expect(answer.status).toBe(200);
    expect(answer.json.error).toEqual({ code: 'ok', message: '', log_id: expect.stringMatching(/^\d{14}[0-9A-F]+$/) });
    const data = answer.json.data as { publish_id: string; upload_url: string };
    expect(data.publish_id).toMatch(/^v_pub_file~v2-1\.\d{19}$/);
    expect(data.publish_id.length).toBeLessThanOrEqual(64);
    expect(data.upload_url).toMatch(new RegExp(`^${url}/video/\\?upload_id=\\d+&upload_token=[\\w-]+$`));
    expect(data.upload_url.length).toBeLessThanOrEqual(256);
  });

  it('video/init PULL_FROM_URL answers a v_pub_url id and no upload_url', async () => {
    const { token } = await connectRaw(url);
    const answer = await apiCall(
      url,
      token,
      VIDEO,
      directVideo({}, { source: 'PULL_FROM_URL', video_url: `${PULL_BASE}v.mp4` }),
    );
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json.data!)).toEqual(['publish_id']);
    expect(answer.json.data!.publish_id).toMatch(/^v_pub_url~v2\.\d{19}$/);
  });

  it('inbox/video/init answers v_inbox_file (with upload_url) and v_inbox_url ids', async () => {
    const { token } = await connectRaw(url);
    const file = await apiCall(url, token, INBOX, { source_info: upload() });
    expect(file.json.data).toEqual({
      publish_id: expect.stringMatching(/^v_inbox_file~v2\.\d{19}$/),
      upload_url: expect.any(String),
    });
    const pulled = await apiCall(url, token, INBOX, {
      source_info: { source: 'PULL_FROM_URL', video_url: `${PULL_BASE}v.mp4` },
    });
    expect(pulled.json.data).toEqual({ publish_id: expect.stringMatching(/^v_inbox_url~v2\.\d{19}$/) });
  });

  it('content/init answers p_pub_url for DIRECT_POST and p_inbox_url for MEDIA_UPLOAD, without upload_url', async () => {
    const { token } = await connectRaw(url);
    const direct = await apiCall(url, token, CONTENT, photos());
    expect(direct.json.data).toEqual({ publish_id: expect.stringMatching(/^p_pub_url~v2\.\d{19}$/) });
    const draft = await apiCall(url, token, CONTENT, photos('MEDIA_UPLOAD'));
    expect(draft.json.data).toEqual({ publish_id: expect.stringMatching(/^p_inbox_url~v2\.\d{19}$/) });
  });

  it('records the post as received, the init arrival time and the init request count', async () => {
    const { openId, token } = await connectRaw(url);
    const before = Date.now();
    const body = directVideo({ title: 'kept as sent', disable_duet: true, is_aigc: false });
    const answer = await apiCall(url, token, VIDEO, body);
    await apiCall(url, token, VIDEO, directVideo({ privacy_level: 'NOPE' }));
    const list = (await (await controlCall(url, 'GET', `/__control/posts?openId=${openId}`)).json()) as {
      posts: Record<string, unknown>[];
      initRequests: Record<string, number>;
    };
    expect(list.initRequests).toEqual({ [openId]: 2 });
    expect(list.posts).toHaveLength(1);
    const post = list.posts[0]!;
    expect(post).toMatchObject({
      publishId: answer.json.data!.publish_id,
      openId,
      kind: 'video',
      mode: 'DIRECT_POST',
      source: 'FILE_UPLOAD',
      postInfo: body.post_info,
      request: body,
      status: 'PROCESSING_UPLOAD',
      failReason: null,
      postIds: [],
    });
    expect(post.initReceivedAtMs).toBeGreaterThanOrEqual(before);
    expect(post.initReceivedAtMs).toBeLessThanOrEqual(Date.parse(post.createdAt as string));
    expect(post.initReceivedAt).toBe(new Date(post.initReceivedAtMs as number).toISOString());
    const one = await controlCall(url, 'GET', `/__control/posts/${encodeURIComponent(post.publishId as string)}`);
    expect(((await one.json()) as { publishId: string }).publishId).toBe(post.publishId);
    expect((await controlCall(url, 'GET', '/__control/posts/nope')).status).toBe(404);
  });
});

describe('synchronous validation', () => {
  it('refuses a missing or foreign privacy_level with 403 privacy_level_option_mismatch', async () => {
    const { token } = await connectRaw(url, { privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'] });
    await expectRefusal(
      token,
      VIDEO,
      directVideo({ privacy_level: 'PUBLIC_TO_EVERYONE' }),
      403,
      'privacy_level_option_mismatch',
    );
    await expectRefusal(token, VIDEO, directVideo({ privacy_level: undefined }), 403, 'privacy_level_option_mismatch');
    await expectRefusal(
      token,
      CONTENT,
      photos('DIRECT_POST', { privacy_level: 'MUTUAL_FOLLOW_FRIENDS' }),
      403,
      'privacy_level_option_mismatch',
    );
    expect((await apiCall(url, token, VIDEO, directVideo({ privacy_level: 'FOLLOWER_OF_CREATOR' }))).status).toBe(200);
  });

  it('counts titles in UTF-16 code units: 2200 for video, 90 and 4000 for photo title and description', async () => {
    const { token } = await connectRaw(url);
    const emoji = '😀'; // two UTF-16 units
    expect((await apiCall(url, token, VIDEO, directVideo({ title: emoji.repeat(1100) }))).status).toBe(200);
    await expectRefusal(token, VIDEO, directVideo({ title: `${emoji.repeat(1100)}a` }), 400, 'invalid_params');
    expect(
      (
        await apiCall(
          url,
          token,
          CONTENT,
          photos('DIRECT_POST', { title: emoji.repeat(45), description: 'd'.repeat(4000) }),
        )
      ).status,
    ).toBe(200);
    await expectRefusal(
      token,
      CONTENT,
      photos('DIRECT_POST', { title: `${emoji.repeat(45)}a` }),
      400,
      'invalid_params',
    );
    await expectRefusal(
      token,
      CONTENT,
      photos('DIRECT_POST', { description: 'd'.repeat(4001) }),
      400,
      'invalid_params',
    );
    await expectRefusal(token, VIDEO, { source_info: upload() }, 400, 'invalid_params');
    await expectRefusal(token, VIDEO, directVideo({ disable_comment: 'yes' }), 400, 'invalid_params');
  });

  it('applies the chunk arithmetic of 4.3, including the worked example', async () => {
    const { token } = await connectRaw(url);
    const ok = async (size: number, chunk: number, count: number) =>
      expect((await apiCall(url, token, VIDEO, directVideo({}, upload(size, chunk, count)))).status).toBe(200);
    const bad = (size: number, chunk: number, count: number) =>
      expectRefusal(token, VIDEO, directVideo({}, upload(size, chunk, count)), 400, 'invalid_params');
    await ok(50_000_123, 10_000_000, 5); // the 5th chunk takes the remainder: 10,000,123 bytes
    await bad(50_000_123, 10_000_000, 6); // not floor(size / chunk)
    await bad(50_000_123, 10_000_000, 4);
    await ok(4 * MIB, 4 * MIB, 1); // under 5 MiB: one chunk of its size
    await bad(4 * MIB, 2 * MIB, 2);
    await bad(12 * MIB, 4 * MIB, 3); // chunk below 5 MiB
    await ok(5 * MIB, 5 * MIB, 1); // 5 MiB is the smallest chunk, inclusive
    await bad(200 * MIB, 65 * MIB, 3); // chunk above 64 MiB
    await bad(100 * MIB, 64 * MIB, 1); // above 64 MiB must be split
    await ok(100 * MIB, 50 * MIB, 2);
    await bad(6000 * MIB, 5 * MIB, 1200); // more than 1000 chunks
    await bad(5 * 1024 * MIB, 64 * MIB, 80); // above 4 GiB
    await bad(0, 0, 0);
    await expectRefusal(
      token,
      VIDEO,
      directVideo({}, { source: 'FILE_UPLOAD', video_size: '10' }),
      400,
      'invalid_params',
    );
    await expectRefusal(token, VIDEO, directVideo({}, { source: 'DISK' }), 400, 'invalid_params');
  });

  it('checks photo_images (1–35), photo_cover_index, media_type and source', async () => {
    const { token } = await connectRaw(url);
    const images = (n: number) => Array.from({ length: n }, (_, i) => `${PULL_BASE}${i}.jpg`);
    expect(
      (
        await apiCall(
          url,
          token,
          CONTENT,
          photos('DIRECT_POST', {}, { photo_images: images(35), photo_cover_index: 34 }),
        )
      ).status,
    ).toBe(200);
    await expectRefusal(token, CONTENT, photos('DIRECT_POST', {}, { photo_images: images(36) }), 400, 'invalid_params');
    await expectRefusal(token, CONTENT, photos('DIRECT_POST', {}, { photo_images: [] }), 400, 'invalid_params');
    await expectRefusal(
      token,
      CONTENT,
      photos('DIRECT_POST', {}, { photo_images: images(2), photo_cover_index: 2 }),
      400,
      'invalid_params',
    );
    await expectRefusal(token, CONTENT, { ...photos(), media_type: 'VIDEO' }, 400, 'invalid_params');
    await expectRefusal(token, CONTENT, photos('DIRECT_POST', {}, { source: 'FILE_UPLOAD' }), 400, 'invalid_params');
    await expectRefusal(token, CONTENT, { ...photos(), post_mode: 'DIRECT POST' }, 400, 'invalid_params');
  });

  it('refuses pull URLs that are not https or not on a verified domain or prefix with 403 url_ownership_unverified', async () => {
    const { token } = await connectRaw(url);
    const pull = (u: string) => directVideo({}, { source: 'PULL_FROM_URL', video_url: u });
    await expectRefusal(token, VIDEO, pull('http://127.0.0.1:9/media/v.mp4'), 403, 'url_ownership_unverified');
    await expectRefusal(token, VIDEO, pull('https://127.0.0.1:9/other/v.mp4'), 403, 'url_ownership_unverified');
    await expectRefusal(token, VIDEO, pull('https://evil-example.net/v.mp4'), 403, 'url_ownership_unverified');
    await expectRefusal(
      token,
      INBOX,
      { source_info: { source: 'PULL_FROM_URL', video_url: 'https://x.invalid/v' } },
      403,
      'url_ownership_unverified',
    );
    await expectRefusal(
      token,
      CONTENT,
      photos('DIRECT_POST', {}, { photo_images: [`${PULL_BASE}a.jpg`, 'https://x.invalid/b.jpg'] }),
      403,
      'url_ownership_unverified',
    );
    // A bare domain covers itself and its subdomains.
    expect((await apiCall(url, token, VIDEO, pull('https://cdn.example.net/v.mp4'))).status).toBe(200);
    expect((await apiCall(url, token, VIDEO, pull('https://example.net/v.mp4'))).status).toBe(200);
  });

  it('refuses banned users, with creator_info answering the same code with HTTP 200', async () => {
    const { token } = await connectRaw(url, { banned: true });
    await expectRefusal(token, VIDEO, directVideo(), 403, 'spam_risk_user_banned_from_posting');
    await expectRefusal(token, INBOX, { source_info: upload() }, 403, 'spam_risk_user_banned_from_posting');
    await expectRefusal(token, CONTENT, photos('MEDIA_UPLOAD'), 403, 'spam_risk_user_banned_from_posting');
    await expectRefusal(token, '/v2/post/publish/creator_info/query/', {}, 200, 'spam_risk_user_banned_from_posting');
  });

  it('caps Direct Posts per creator per day (posts through other apps count) with 403 spam_risk_too_many_posts', async () => {
    const { token } = await connectRaw(url, { otherClientPostsToday: 14 });
    expect((await apiCall(url, token, VIDEO, directVideo())).status).toBe(200);
    await expectRefusal(token, CONTENT, photos(), 403, 'spam_risk_too_many_posts');
    await expectRefusal(token, '/v2/post/publish/creator_info/query/', {}, 200, 'spam_risk_too_many_posts');
    // Drafts are not Direct Posts.
    expect((await apiCall(url, token, INBOX, { source_info: upload() })).status).toBe(200);
  });

  it('allows at most 5 pending inbox shares, then 403 spam_risk_too_many_pending_share', async () => {
    const { token } = await connectRaw(url);
    for (let i = 0; i < 5; i += 1)
      expect((await apiCall(url, token, INBOX, { source_info: upload() })).status).toBe(200);
    await expectRefusal(token, INBOX, { source_info: upload() }, 403, 'spam_risk_too_many_pending_share');
    await expectRefusal(token, CONTENT, photos('MEDIA_UPLOAD'), 403, 'spam_risk_too_many_pending_share');
  });

  it("answers 400 app_version_check_failed for photo MEDIA_UPLOAD when the user's app is old", async () => {
    const { token } = await connectRaw(url, { appVersionOutdated: true });
    await expectRefusal(token, CONTENT, photos('MEDIA_UPLOAD'), 400, 'app_version_check_failed');
    expect((await apiCall(url, token, CONTENT, photos('DIRECT_POST'))).status).toBe(200);
  });

  it('needs video.publish for Direct Post and video.upload for drafts (401 scope_not_authorized)', async () => {
    const noUpload = await connectRaw(url, { deniedScopes: ['video.upload'] });
    await expectRefusal(noUpload.token, INBOX, { source_info: upload() }, 401, 'scope_not_authorized');
    await expectRefusal(noUpload.token, CONTENT, photos('MEDIA_UPLOAD'), 401, 'scope_not_authorized');
    expect((await apiCall(url, noUpload.token, VIDEO, directVideo())).status).toBe(200);
    const noPublish = await connectRaw(url, { deniedScopes: ['video.publish'] });
    await expectRefusal(noPublish.token, VIDEO, directVideo(), 401, 'scope_not_authorized');
    await expectRefusal(noPublish.token, CONTENT, photos(), 401, 'scope_not_authorized');
    await expectRefusal('act.nope', VIDEO, directVideo(), 401, 'access_token_invalid');
  });
});

describe('unaudited app', () => {
  it('refuses public accounts, forces SELF_ONLY and allows 5 posting users a day', async () => {
    const g = await startTikTokFixture({ audited: false, rateLimits: fast });
    try {
      const base = g.emulator.url;
      const privateOptions = { privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'] };
      const pub = await connectRaw(base);
      await expectRefusal(
        pub.token,
        VIDEO,
        directVideo(),
        403,
        'unaudited_client_can_only_post_to_private_accounts',
        base,
      );
      const users = [];
      for (let i = 0; i < 6; i += 1) users.push(await connectRaw(base, privateOptions));
      for (const user of users.slice(0, 5)) {
        const answer = await apiCall(base, user.token, VIDEO, directVideo({ privacy_level: 'FOLLOWER_OF_CREATOR' }));
        expect(answer.status).toBe(200);
        const post = (await (
          await controlCall(base, 'GET', `/__control/posts/${String(answer.json.data!.publish_id)}`)
        ).json()) as Record<string, unknown>;
        expect(post).toMatchObject({ privacyLevel: 'FOLLOWER_OF_CREATOR', effectivePrivacyLevel: 'SELF_ONLY' });
      }
      await expectRefusal(users[5]!.token, VIDEO, directVideo(), 403, 'reached_active_user_cap', base);
      // A user already active today may post again.
      expect((await apiCall(base, users[0]!.token, VIDEO, directVideo())).status).toBe(200);
    } finally {
      await g.emulator.stop();
    }
  });
});

describe('options, rate limits and injected failures', () => {
  it('spells validation errors invalid_param when configured', async () => {
    const g = await startTikTokFixture({ invalidParamsCode: 'invalid_param' });
    try {
      const { token } = await connectRaw(g.emulator.url);
      await expectRefusal(token, VIDEO, { source_info: upload() }, 400, 'invalid_param', g.emulator.url);
    } finally {
      await g.emulator.stop();
    }
  });

  it('limits each init and status per token per sliding minute with 429 rate_limit_exceeded', async () => {
    const g = await startTikTokFixture({ rateLimits: { videoInit: 2, contentInit: 1, status: 3 } });
    try {
      const base = g.emulator.url;
      const { token } = await connectRaw(base);
      const first = await apiCall(base, token, VIDEO, directVideo());
      await apiCall(base, token, VIDEO, directVideo());
      await expectRefusal(token, VIDEO, directVideo(), 429, 'rate_limit_exceeded', base);
      await apiCall(base, token, CONTENT, photos());
      await expectRefusal(token, CONTENT, photos(), 429, 'rate_limit_exceeded', base);
      // Limits are per endpoint and per token.
      expect((await apiCall(base, token, INBOX, { source_info: upload() })).status).toBe(200);
      expect((await apiCall(base, (await connectRaw(base)).token, VIDEO, directVideo())).status).toBe(200);
      const status = { publish_id: first.json.data!.publish_id };
      for (let i = 0; i < 3; i += 1) expect((await apiCall(base, token, STATUS, status)).status).toBe(200);
      await expectRefusal(token, STATUS, status, 429, 'rate_limit_exceeded', base);
    } finally {
      await g.emulator.stop();
    }
  });

  it('answers an injected status on init, status and cancel, once per `times`', async () => {
    const { openId, token } = await connectRaw(url);
    const inject = (body: unknown) => controlCall(url, 'POST', `/__control/accounts/${openId}/failures`, body);
    expect((await inject({ endpoint: 'video_init', status: 503, code: 'internal_error' })).status).toBe(201);
    await expectRefusal(token, VIDEO, directVideo(), 503, 'internal_error');
    const made = await apiCall(url, token, VIDEO, directVideo());
    expect(made.status).toBe(200);
    await inject({ endpoint: 'content_init', status: 403, code: 'url_ownership_unverified', times: 2 });
    await expectRefusal(token, CONTENT, photos(), 403, 'url_ownership_unverified');
    await expectRefusal(token, CONTENT, photos(), 403, 'url_ownership_unverified');
    expect((await apiCall(url, token, CONTENT, photos())).status).toBe(200);
    await inject({ endpoint: 'inbox_init', status: 429, code: 'rate_limit_exceeded' });
    await expectRefusal(token, INBOX, { source_info: upload() }, 429, 'rate_limit_exceeded');
    const status = { publish_id: made.json.data!.publish_id };
    await inject({ endpoint: 'status', status: 500, code: 'internal_error' });
    await expectRefusal(token, STATUS, status, 500, 'internal_error');
    expect((await apiCall(url, token, STATUS, status)).status).toBe(200);
    await inject({ endpoint: 'cancel', status: 502, code: 'internal_error' });
    await expectRefusal(token, CANCEL, status, 502, 'internal_error');
    // The injected 503 created nothing: one init of each kind succeeded.
    const list = (await (await controlCall(url, 'GET', `/__control/posts?openId=${openId}`)).json()) as {
      posts: unknown[];
      initRequests: Record<string, number>;
    };
    expect(list.posts).toHaveLength(2);
    expect(list.initRequests[openId]).toBe(6);
  });
});

describe('publish ids belong to their user', () => {
  it("answers invalid_publish_id for unknown ids and token_not_authorized_for_specified_publish_id for others'", async () => {
    const owner = await connectRaw(url);
    const other = await connectRaw(url);
    const made = await apiCall(url, owner.token, VIDEO, directVideo());
    const id = { publish_id: made.json.data!.publish_id };
    for (const path of [STATUS, CANCEL]) {
      await expectRefusal(owner.token, path, { publish_id: 'v_pub_file~v2-1.1' }, 400, 'invalid_publish_id');
      await expectRefusal(other.token, path, id, 400, 'token_not_authorized_for_specified_publish_id');
      await expectRefusal(owner.token, path, {}, 400, 'invalid_params');
    }
    // A second grant of the same user may read it.
    const again = await apiCall(url, owner.token, STATUS, id);
    expect(again.json.data).toEqual({
      status: 'PROCESSING_UPLOAD',
      publicaly_available_post_id: [],
      uploaded_bytes: 0,
    });
    await expectRefusal(owner.token, CANCEL, id, 400, 'publish_not_cancellable');
  });
});
