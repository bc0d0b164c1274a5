import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TikTokApiError, TikTokInitError } from '../../src/core/providers/tiktok/errors.js';
import { buildAuthorizeUrl, exchangeCode } from '../../src/core/providers/tiktok/oauth.js';
import {
  initInboxVideo,
  initPhotoPost,
  initVideoPost,
  type TikTokVideoSource,
} from '../../src/core/providers/tiktok/publish.js';
import { cancelPublish, fetchPublishStatus } from '../../src/core/providers/tiktok/status.js';
import { answerConsent, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

// Contract tests of the three init endpoints, status and cancel errors against the emulator: each
// success shape, and each documented error code with its status and createdNothing classification.

const VERIFIED = 'https://media.example.com/';
const PRIVATE_OPTIONS = ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
const fileSource: TikTokVideoSource = { source: 'FILE_UPLOAD', videoSize: 1_000_000 };
const pullSource: TikTokVideoSource = { source: 'PULL_FROM_URL', videoUrl: `${VERIFIED}v.mp4` };
const photos = { photoImages: [`${VERIFIED}1.jpg`, `${VERIFIED}2.jpg`], photoCoverIndex: 0 };

let f: TikTokFixture;
beforeAll(async () => {
  f = await startTikTokFixture({
    verifiedUrlPrefixes: [VERIFIED],
    pendingShareCap: 2,
    // Pulls of media.example.com fail in the background; these tests only look at the inits.
    pullTimeoutMs: 1000,
  });
});
afterAll(async () => {
  await f.emulator.stop();
});

async function connect(fields: Record<string, unknown> = {}, fixture = f): Promise<{ openId: string; token: string }> {
  const account = await fixture.createAccount(fields);
  const callback = await answerConsent(buildAuthorizeUrl(fixture.http, { state: 's' }), { openId: account.openId });
  const tokens = await exchangeCode(fixture.http, callback.searchParams.get('code')!);
  return { openId: account.openId, token: tokens.accessToken };
}

async function control(method: string, url: string, body: unknown, fixture = f): Promise<Response> {
  const response = await fetch(`${fixture.emulator.url}${url}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBeLessThan(300);
  return response;
}

async function rejection<T extends TikTokApiError = TikTokApiError>(promise: Promise<unknown>): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TikTokApiError);
  return error as T;
}

function initRejection(promise: Promise<unknown>): Promise<TikTokInitError> {
  return rejection<TikTokInitError>(promise).then((error) => {
    expect(error).toBeInstanceOf(TikTokInitError);
    return error;
  });
}

describe('init success shapes', () => {
  it('video/init FILE_UPLOAD answers a publish_id and an upload_url on the upload host', async () => {
    const { token } = await connect();
    const result = await initVideoPost(f.http, token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: fileSource });
    expect(result.publishId).toMatch(/^v_pub_file~v2-1\.\d+$/);
    expect(result.publishId.length).toBeLessThanOrEqual(64);
    expect(result.uploadUrl).toMatch(new RegExp(`^${f.emulator.url}/video/\\?upload_id=\\d+&upload_token=\\S+$`));
    expect(result.plan).toMatchObject({ videoSize: 1_000_000, chunkSize: 1_000_000, totalChunkCount: 1 });
    expect(await fetchPublishStatus(f.http, token, result.publishId)).toEqual({
      status: 'PROCESSING_UPLOAD',
      failReason: null,
      postIds: [],
      uploadedBytes: 0,
      downloadedBytes: null,
    });
  });

  it('video/init PULL_FROM_URL answers a publish_id only', async () => {
    const { token } = await connect();
    const result = await initVideoPost(f.http, token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: pullSource });
    expect(Object.keys(result)).toEqual(['publishId']);
    expect(result.publishId).toMatch(/^v_pub_url~v2\.\d+$/);
  });

  it('inbox/video/init answers v_inbox_file (with upload_url) and v_inbox_url ids', async () => {
    const { token } = await connect();
    const file = await initInboxVideo(f.http, token, { source: fileSource });
    expect(file.publishId).toMatch(/^v_inbox_file~v2\.\d+$/);
    expect(file.uploadUrl).toContain('/video/?upload_id=');
    const url = await initInboxVideo(f.http, token, { source: pullSource });
    expect(url).toEqual({ publishId: expect.stringMatching(/^v_inbox_url~v2\.\d+$/) });
  });

  it('content/init answers a photo publish_id, direct and draft', async () => {
    const { token } = await connect();
    const direct = await initPhotoPost(f.http, token, {
      postMode: 'DIRECT_POST',
      postInfo: { privacyLevel: 'PUBLIC_TO_EVERYONE', title: 'Photos', autoAddMusic: true },
      isAigc: true,
      ...photos,
    });
    expect(direct).toEqual({ publishId: expect.stringMatching(/^p_pub_url~v2\.\d+$/) });
    const draft = await initPhotoPost(f.http, token, {
      postMode: 'MEDIA_UPLOAD',
      postInfo: { title: 'Draft' },
      ...photos,
    });
    expect(draft.publishId).toMatch(/^p_\w+~v2\.\d+$/);
  });
});

describe('init errors: documented refusals create nothing', () => {
  it('403 privacy_level_option_mismatch for a level outside the creator options', async () => {
    const { token } = await connect({ privacyLevelOptions: PRIVATE_OPTIONS });
    const error = await initRejection(
      initVideoPost(f.http, token, { postInfo: { privacyLevel: 'PUBLIC_TO_EVERYONE' }, source: fileSource }),
    );
    expect(error).toMatchObject({
      tiktokCode: 'privacy_level_option_mismatch',
      httpStatus: 403,
      createdNothing: true,
      code: 'provider_error',
      logId: expect.any(String),
    });
  });

  it('403 url_ownership_unverified for a pull URL off the verified prefixes', async () => {
    const { token } = await connect();
    const source: TikTokVideoSource = { source: 'PULL_FROM_URL', videoUrl: 'https://elsewhere.example/v.mp4' };
    const direct = await initRejection(
      initVideoPost(f.http, token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source }),
    );
    expect(direct).toMatchObject({ tiktokCode: 'url_ownership_unverified', httpStatus: 403, createdNothing: true });
    const inbox = await initRejection(initInboxVideo(f.http, token, { source }));
    expect(inbox).toMatchObject({ tiktokCode: 'url_ownership_unverified', createdNothing: true });
    const photo = await initRejection(
      initPhotoPost(f.http, token, {
        postMode: 'MEDIA_UPLOAD',
        postInfo: {},
        photoImages: ['https://elsewhere.example/1.jpg'],
        photoCoverIndex: 0,
      }),
    );
    expect(photo).toMatchObject({ tiktokCode: 'url_ownership_unverified', createdNothing: true });
  });

  it('403 spam_risk_user_banned_from_posting for a banned user (direct and inbox)', async () => {
    const { token } = await connect({ banned: true });
    const postInfo = { privacyLevel: 'SELF_ONLY' } as const;
    for (const attempt of [
      initVideoPost(f.http, token, { postInfo, source: fileSource }),
      initInboxVideo(f.http, token, { source: fileSource }),
    ]) {
      expect(await initRejection(attempt)).toMatchObject({
        tiktokCode: 'spam_risk_user_banned_from_posting',
        httpStatus: 403,
        createdNothing: true,
      });
    }
  });

  it('403 spam_risk_too_many_posts once the shared daily cap is used', async () => {
    const { token } = await connect({ otherClientPostsToday: 15 });
    const error = await initRejection(
      initPhotoPost(f.http, token, { postMode: 'DIRECT_POST', postInfo: { privacyLevel: 'SELF_ONLY' }, ...photos }),
    );
    expect(error).toMatchObject({ tiktokCode: 'spam_risk_too_many_posts', httpStatus: 403, createdNothing: true });
  });

  it('403 spam_risk_too_many_pending_share once the pending inbox shares are at the cap', async () => {
    const { token } = await connect();
    await initInboxVideo(f.http, token, { source: fileSource });
    await initInboxVideo(f.http, token, { source: fileSource });
    const error = await initRejection(initInboxVideo(f.http, token, { source: fileSource }));
    expect(error).toMatchObject({
      tiktokCode: 'spam_risk_too_many_pending_share',
      httpStatus: 403,
      createdNothing: true,
    });
  });

  it('400 app_version_check_failed for a photo draft to an old TikTok app', async () => {
    const { token } = await connect({ appVersionOutdated: true });
    const error = await initRejection(
      initPhotoPost(f.http, token, { postMode: 'MEDIA_UPLOAD', postInfo: {}, ...photos }),
    );
    expect(error).toMatchObject({ tiktokCode: 'app_version_check_failed', httpStatus: 400, createdNothing: true });
  });

  it('400 invalid_params for what only TikTok checks (a video over 4 GiB)', async () => {
    const { token } = await connect();
    const source: TikTokVideoSource = { source: 'FILE_UPLOAD', videoSize: 5 * 1024 ** 3 };
    const error = await initRejection(
      initVideoPost(f.http, token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source }),
    );
    expect(error).toMatchObject({ tiktokCode: 'invalid_params', httpStatus: 400, createdNothing: true });
  });

  it('401 access_token_invalid for an expired token, flagged for a refresh', async () => {
    const { openId, token } = await connect();
    await control('POST', `/__control/accounts/${openId}/tokens`, { action: 'expire_access' });
    const error = await initRejection(initInboxVideo(f.http, token, { source: fileSource }));
    expect(error).toMatchObject({ tiktokCode: 'access_token_invalid', httpStatus: 401, createdNothing: true });
    expect(error.isAccessTokenInvalid).toBe(true);
  });

  it('401 scope_not_authorized without the mode scope (video.publish direct, video.upload drafts)', async () => {
    const noPublish = await connect({ deniedScopes: ['video.publish'] });
    const direct = await initRejection(
      initVideoPost(f.http, noPublish.token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: fileSource }),
    );
    expect(direct).toMatchObject({ tiktokCode: 'scope_not_authorized', httpStatus: 401, createdNothing: true });
    expect((await initInboxVideo(f.http, noPublish.token, { source: fileSource })).publishId).toBeTruthy();
    const noUpload = await connect({ deniedScopes: ['video.upload'] });
    const draft = await initRejection(
      initPhotoPost(f.http, noUpload.token, { postMode: 'MEDIA_UPLOAD', postInfo: {}, ...photos }),
    );
    expect(draft).toMatchObject({ tiktokCode: 'scope_not_authorized', createdNothing: true });
  });

  it('injected 403 and 429 answers are refusals too', async () => {
    const { openId, token } = await connect();
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'content_init',
      status: 403,
      code: 'reached_active_user_cap',
    });
    const cap = await initRejection(
      initPhotoPost(f.http, token, { postMode: 'DIRECT_POST', postInfo: { privacyLevel: 'SELF_ONLY' }, ...photos }),
    );
    expect(cap).toMatchObject({ tiktokCode: 'reached_active_user_cap', httpStatus: 403, createdNothing: true });
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'video_init',
      status: 429,
      code: 'rate_limit_exceeded',
    });
    const limited = await initRejection(
      initVideoPost(f.http, token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: fileSource }),
    );
    expect(limited).toMatchObject({
      httpStatus: 429,
      code: 'rate_limited',
      createdNothing: true,
      retryAfterSeconds: 60,
    });
  });
});

describe('init errors: ambiguous failures are never retried', () => {
  it('a 5xx is ambiguous and not retried: the one injected failure is spent by one call', async () => {
    const { openId, token } = await connect();
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'video_init',
      status: 500,
      code: 'internal_error',
      times: 1,
    });
    const error = await initRejection(
      initVideoPost(f.http, token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: fileSource }),
    );
    expect(error).toMatchObject({ tiktokCode: 'internal_error', httpStatus: 500, createdNothing: false });
    const seen = (await (await fetch(`${f.emulator.url}/__control/posts?openId=${openId}`)).json()) as {
      initRequests: Record<string, number>;
    };
    expect(seen.initRequests[openId]).toBe(1);
    // Had the transport retried, the first call would have succeeded; the failure is spent, so this one does.
    expect(
      (await initVideoPost(f.http, token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: fileSource })).publishId,
    ).toBeTruthy();
  });

  it("the emulator's own 429 (its limit below the client's) is a refusal, not retried", async () => {
    const strict = await startTikTokFixture({ rateLimits: { inboxInit: 1 } });
    try {
      const { token } = await connect({}, strict);
      await initInboxVideo(strict.http, token, { source: fileSource });
      const error = await initRejection(initInboxVideo(strict.http, token, { source: fileSource }));
      expect(error).toMatchObject({ tiktokCode: 'rate_limit_exceeded', httpStatus: 429, createdNothing: true });
    } finally {
      await strict.emulator.stop();
    }
  });
});

describe('init errors of an unaudited app', () => {
  let u: TikTokFixture;
  beforeAll(async () => {
    u = await startTikTokFixture({ audited: false, activeUserCap: 1, invalidParamsCode: 'invalid_param' });
  });
  afterAll(async () => {
    await u.emulator.stop();
  });

  it('403 unaudited_client_can_only_post_to_private_accounts for a public account', async () => {
    const { token } = await connect({}, u);
    const error = await initRejection(
      initVideoPost(u.http, token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: fileSource }),
    );
    expect(error).toMatchObject({
      tiktokCode: 'unaudited_client_can_only_post_to_private_accounts',
      httpStatus: 403,
      createdNothing: true,
    });
  });

  it('403 reached_active_user_cap for one posting user too many', async () => {
    const first = await connect({ privacyLevelOptions: PRIVATE_OPTIONS }, u);
    await initVideoPost(u.http, first.token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: fileSource });
    const second = await connect({ privacyLevelOptions: PRIVATE_OPTIONS }, u);
    const error = await initRejection(
      initVideoPost(u.http, second.token, { postInfo: { privacyLevel: 'SELF_ONLY' }, source: fileSource }),
    );
    expect(error).toMatchObject({ tiktokCode: 'reached_active_user_cap', httpStatus: 403, createdNothing: true });
  });

  it('400 invalid_param (the singular spelling) is a refusal too', async () => {
    const { token } = await connect({}, u);
    const error = await initRejection(
      initInboxVideo(u.http, token, { source: { source: 'FILE_UPLOAD', videoSize: 5 * 1024 ** 3 } }),
    );
    expect(error).toMatchObject({ tiktokCode: 'invalid_param', httpStatus: 400, createdNothing: true });
  });
});

describe('status and cancel errors', () => {
  it('400 invalid_publish_id for an unknown id, on status and cancel', async () => {
    const { token } = await connect();
    for (const call of [fetchPublishStatus(f.http, token, 'v_pub_url~v2.1'), cancelPublish(f.http, token, 'nope')]) {
      expect(await rejection(call)).toMatchObject({ tiktokCode: 'invalid_publish_id', httpStatus: 400 });
    }
  });

  it("400 token_not_authorized_for_specified_publish_id for another user's publish", async () => {
    const owner = await connect();
    const { publishId } = await initInboxVideo(f.http, owner.token, { source: fileSource });
    const other = await connect();
    for (const call of [
      fetchPublishStatus(f.http, other.token, publishId),
      cancelPublish(f.http, other.token, publishId),
    ]) {
      expect(await rejection(call)).toMatchObject({
        tiktokCode: 'token_not_authorized_for_specified_publish_id',
        httpStatus: 400,
      });
    }
  });

  it('400 publish_not_cancellable for a FILE_UPLOAD (nothing to download)', async () => {
    const { token } = await connect();
    const { publishId } = await initInboxVideo(f.http, token, { source: fileSource });
    expect(await rejection(cancelPublish(f.http, token, publishId))).toMatchObject({
      tiktokCode: 'publish_not_cancellable',
      httpStatus: 400,
    });
  });

  it('401 access_token_invalid and scope_not_authorized on status', async () => {
    const { openId, token } = await connect();
    const { publishId } = await initInboxVideo(f.http, token, { source: fileSource });
    await control('POST', `/__control/accounts/${openId}/tokens`, { action: 'expire_access' });
    const expired = await rejection(fetchPublishStatus(f.http, token, publishId));
    expect(expired).toMatchObject({ tiktokCode: 'access_token_invalid', httpStatus: 401, isAccessTokenInvalid: true });
    const scopeless = await connect({ deniedScopes: ['video.publish', 'video.upload'] });
    expect(await rejection(fetchPublishStatus(f.http, scopeless.token, publishId))).toMatchObject({
      tiktokCode: 'scope_not_authorized',
      httpStatus: 401,
    });
  });

  it('status and cancel are retried through an injected 5xx or 429, and give up after the retries', async () => {
    const { openId, token } = await connect();
    const { publishId } = await initInboxVideo(f.http, token, { source: fileSource });
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'status',
      status: 503,
      code: 'internal_error',
    });
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'status',
      status: 429,
      code: 'rate_limit_exceeded',
    });
    expect((await fetchPublishStatus(f.http, token, publishId)).status).toBe('PROCESSING_UPLOAD');
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'cancel',
      status: 500,
      code: 'internal_error',
      times: 9,
    });
    expect(await rejection(cancelPublish(f.http, token, publishId))).toMatchObject({
      tiktokCode: 'internal_error',
      httpStatus: 500,
      code: 'provider_error',
    });
  });
});
