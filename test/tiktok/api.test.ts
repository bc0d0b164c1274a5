import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryCreatorInfo } from '../../src/core/providers/tiktok/creator-info.js';
import { TikTokApiError } from '../../src/core/providers/tiktok/errors.js';
import { TikTokHttp } from '../../src/core/providers/tiktok/http.js';
import { buildAuthorizeUrl, exchangeCode } from '../../src/core/providers/tiktok/oauth.js';
import { getUserInfo } from '../../src/core/providers/tiktok/user-info.js';
import { createLogger } from '../../src/logger.js';
import { answerConsent, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

let f: TikTokFixture;
beforeAll(async () => {
  f = await startTikTokFixture({ rateLimits: { userInfo: 600, creatorInfo: 3 } });
});
afterAll(async () => {
  await f.emulator.stop();
});

/** Connects a new emulated account and returns its open_id and access token. */
async function connect(fields: Record<string, unknown> = {}, fixture = f): Promise<{ openId: string; token: string }> {
  const account = await fixture.createAccount(fields);
  const callback = await answerConsent(buildAuthorizeUrl(fixture.http, { state: 's' }), { openId: account.openId });
  const tokens = await exchangeCode(fixture.http, callback.searchParams.get('code')!);
  return { openId: account.openId, token: tokens.accessToken };
}

async function control(method: string, url: string, body: unknown): Promise<Response> {
  return fetch(`${f.emulator.url}${url}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function rejection(promise: Promise<unknown>): Promise<TikTokApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TikTokApiError);
  return error as TikTokApiError;
}

describe('user info', () => {
  it('returns the requested fields of the connected user', async () => {
    const { openId, token } = await connect({
      displayName: 'Ada',
      username: 'ada.l',
      avatarUrl: 'https://a.example/1.jpg',
    });
    expect(await getUserInfo(f.http, token)).toEqual({
      openId,
      unionId: expect.any(String),
      displayName: 'Ada',
      username: 'ada.l',
      avatarUrl: 'https://a.example/1.jpg',
    });
  });

  it('answers scope_permission_missed (400) for username without user.info.profile', async () => {
    const { token } = await connect({ deniedScopes: ['user.info.profile'] });
    expect(await rejection(getUserInfo(f.http, token))).toMatchObject({
      tiktokCode: 'scope_permission_missed',
      httpStatus: 400,
    });
    expect((await getUserInfo(f.http, token, ['open_id', 'display_name'])).username).toBeUndefined();
  });

  it('answers access_token_invalid (401) for an unknown token, in the envelope with data {}', async () => {
    const response = await fetch(`${f.emulator.url}/v2/user/info/?fields=open_id`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      data: {},
      error: { code: 'access_token_invalid', log_id: expect.any(String) },
    });
  });
});

describe('creator info', () => {
  it('returns the creator fixture', async () => {
    const { token } = await connect({
      displayName: 'Bo',
      username: 'bo',
      stitchDisabled: true,
      maxVideoPostDurationSec: 300,
    });
    expect(await queryCreatorInfo(f.http, token)).toEqual({
      info: {
        avatarUrl: expect.any(String),
        username: 'bo',
        nickname: 'Bo',
        privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
        commentDisabled: false,
        duetDisabled: false,
        stitchDisabled: true,
        maxVideoPostDurationSec: 300,
      },
      cannotPost: null,
    });
  });

  it('reflects changes made through the control API', async () => {
    const { openId, token } = await connect();
    const patch = await control('PATCH', `/__control/accounts/${openId}`, {
      privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      commentDisabled: true,
      displayName: 'Renamed',
    });
    expect(patch.status).toBe(200);
    const { info } = await queryCreatorInfo(f.http, token);
    expect(info).toMatchObject({ nickname: 'Renamed', commentDisabled: true });
    expect(info?.privacyLevelOptions).toEqual(['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']);
  });

  it('reports "cannot post now" from TikTok\'s HTTP 200 codes instead of throwing', async () => {
    const { token } = await connect({ canPost: false, cannotPostReason: 'spam_risk_user_banned_from_posting' });
    const result = await queryCreatorInfo(f.http, token);
    expect(result.cannotPost).toMatchObject({ code: 'spam_risk_user_banned_from_posting' });
  });

  it('answers scope_not_authorized (401) when video.publish was not granted', async () => {
    const { token } = await connect({ deniedScopes: ['video.publish'] });
    expect(await rejection(queryCreatorInfo(f.http, token))).toMatchObject({
      tiktokCode: 'scope_not_authorized',
      httpStatus: 401,
    });
  });

  it('answers rate_limit_exceeded with 429 over the per-token limit', async () => {
    const noRetry = new TikTokHttp(f.config, createLogger({ level: 'silent' }), { maxRetries: 0 });
    const { token } = await connect();
    for (let i = 0; i < 3; i += 1) await queryCreatorInfo(noRetry, token);
    const error = await rejection(queryCreatorInfo(noRetry, token));
    expect(error).toMatchObject({ tiktokCode: 'rate_limit_exceeded', httpStatus: 429, code: 'rate_limited' });
  });

  it('retries an injected 5xx on a safe call, and gives up after the retries', async () => {
    const { openId, token } = await connect();
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: 'creator_info',
      status: 500,
      code: 'internal_error',
    });
    expect((await queryCreatorInfo(f.http, token)).info).not.toBeNull();
    await control('POST', `/__control/accounts/${openId}/failures`, {
      endpoint: '*',
      status: 503,
      code: 'internal_error',
      times: 9,
    });
    expect(await rejection(getUserInfo(f.http, token))).toMatchObject({ httpStatus: 503, code: 'provider_error' });
  });
});

describe('persistence', () => {
  it('keeps accounts and tokens in dataFile across a restart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tiktok-emu-'));
    const dataFile = path.join(dir, 'tiktok.json');
    try {
      const first = await startTikTokFixture({ dataFile });
      const { openId, token } = await connect({ username: 'kept' }, first);
      await first.emulator.stop();
      const second = await startTikTokFixture({ dataFile });
      expect((await getUserInfo(second.http, token)).openId).toBe(openId);
      await second.emulator.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
