import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TikTokApiError } from '../../src/core/providers/tiktok/errors.js';
import { TikTokHttp } from '../../src/core/providers/tiktok/http.js';
import {
  buildAuthorizeUrl,
  createPkcePair,
  exchangeCode,
  refreshTokens,
  revokeToken,
} from '../../src/core/providers/tiktok/oauth.js';
import { getUserInfo } from '../../src/core/providers/tiktok/user-info.js';
import { createLogger } from '../../src/logger.js';
import { answerConsent, REDIRECT_URI, startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

let f: TikTokFixture;
beforeAll(async () => {
  f = await startTikTokFixture({ accessTtlSec: 90 });
});
afterAll(async () => {
  await f.emulator.stop();
});

/** Runs the whole consent step and returns the code from the callback. */
async function authorize(openId: string, scopes?: string[]): Promise<string> {
  const callback = await answerConsent(buildAuthorizeUrl(f.http, { state: 'st-1', scopes }), { openId });
  expect(callback.searchParams.get('state')).toBe('st-1');
  return callback.searchParams.get('code')!;
}

async function rejection(promise: Promise<unknown>): Promise<TikTokApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TikTokApiError);
  return error as TikTokApiError;
}

describe('authorize and the consent page', () => {
  it('builds the documented authorize URL', () => {
    const url = new URL(buildAuthorizeUrl(f.http, { state: 'abc' }));
    expect(url.pathname).toBe('/v2/auth/authorize/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: 'emulator-client-key',
      scope: 'user.info.basic,user.info.profile,video.publish,video.upload,video.list,user.info.stats',
      redirect_uri: REDIRECT_URI,
      state: 'abc',
      response_type: 'code',
    });
  });

  it('redirects Authorize to redirect_uri with code, scopes and state', async () => {
    const account = await f.createAccount();
    const callback = await answerConsent(buildAuthorizeUrl(f.http, { state: 's' }), { openId: account.openId });
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('scopes')).toBe(
      'user.info.basic,user.info.profile,video.publish,video.upload,video.list,user.info.stats',
    );
    expect(callback.searchParams.get('state')).toBe('s');
  });

  it('redirects Cancel with error=access_denied and error_description', async () => {
    await f.createAccount();
    const callback = await answerConsent(buildAuthorizeUrl(f.http, { state: 's' }), { decision: 'cancel' });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('error_description')).toBeTruthy();
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('refuses an unknown client_key or an unregistered redirect_uri with a page, not a redirect', async () => {
    const other = new TikTokHttp({ ...f.config, clientKey: 'nope' }, createLogger({ level: 'silent' }));
    expect((await fetch(buildAuthorizeUrl(other, { state: 's' }), { redirect: 'manual' })).status).toBe(400);
    const elsewhere = new TikTokHttp(
      { ...f.config, redirectUri: 'https://evil.example/cb' },
      createLogger({ level: 'silent' }),
    );
    expect((await fetch(buildAuthorizeUrl(elsewhere, { state: 's' }), { redirect: 'manual' })).status).toBe(400);
  });

  it('redirects an unknown scope back with invalid_scope', async () => {
    const response = await fetch(buildAuthorizeUrl(f.http, { state: 's', scopes: ['video.delete'] }), {
      redirect: 'manual',
    });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('token endpoint', () => {
  it('exchanges a code for the flat token answer, lifetimes taken from expires_in', async () => {
    const account = await f.createAccount();
    const code = await authorize(account.openId);
    const before = Date.now();
    const tokens = await exchangeCode(f.http, code);
    const after = Date.now();
    expect(tokens.openId).toBe(account.openId);
    expect(tokens.accessToken).toMatch(/^act\./);
    expect(tokens.refreshToken).toMatch(/^rft\./);
    expect(tokens.scopes).toEqual([
      'user.info.basic',
      'user.info.profile',
      'video.publish',
      'video.upload',
      'video.list',
      'user.info.stats',
    ]);
    // Expires 90 s (expires_in) after the answer came, whenever that was.
    expect(tokens.accessTokenExpiresAt.getTime()).toBeGreaterThanOrEqual(before + 90_000);
    expect(tokens.accessTokenExpiresAt.getTime()).toBeLessThanOrEqual(after + 90_000);
  });

  it('accepts a code only once, then answers invalid_grant', async () => {
    const account = await f.createAccount();
    const code = await authorize(account.openId);
    await exchangeCode(f.http, code);
    const error = await rejection(exchangeCode(f.http, code));
    expect(error).toMatchObject({ tiktokCode: 'invalid_grant', code: 'provider_error', source: 'oauth' });
    expect(error.needsReconnect).toBe(true);
  });

  it('answers invalid_grant for a redirect_uri other than the one authorized', async () => {
    const account = await f.createAccount();
    const code = await authorize(account.openId);
    const other = new TikTokHttp(
      { ...f.config, redirectUri: 'http://127.0.0.1:9/other' },
      createLogger({ level: 'silent' }),
    );
    expect((await rejection(exchangeCode(other, code))).tiktokCode).toBe('invalid_grant');
  });

  it('answers invalid_client for a wrong client secret', async () => {
    const account = await f.createAccount();
    const code = await authorize(account.openId);
    const wrong = new TikTokHttp({ ...f.config, clientSecret: 'wrong' }, createLogger({ level: 'silent' }));
    const error = await rejection(exchangeCode(wrong, code));
    expect(error).toMatchObject({ tiktokCode: 'invalid_client', httpStatus: 401 });
  });

  it('checks a PKCE verifier against the hex challenge', async () => {
    const account = await f.createAccount();
    const pkce = createPkcePair();
    const url = buildAuthorizeUrl(f.http, { state: 's', codeChallenge: pkce.challenge });
    const code1 = (await answerConsent(url, { openId: account.openId })).searchParams.get('code')!;
    expect((await rejection(exchangeCode(f.http, code1, 'x'.repeat(43)))).tiktokCode).toBe('invalid_grant');
    const code2 = (await answerConsent(url, { openId: account.openId })).searchParams.get('code')!;
    expect((await exchangeCode(f.http, code2, pkce.verifier)).openId).toBe(account.openId);
  });

  it('rotates the refresh token: the old one is rejected with invalid_grant, the new one works', async () => {
    const account = await f.createAccount();
    const first = await exchangeCode(f.http, await authorize(account.openId));
    const second = await refreshTokens(f.http, first.refreshToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect((await rejection(refreshTokens(f.http, first.refreshToken))).tiktokCode).toBe('invalid_grant');
    const third = await refreshTokens(f.http, second.refreshToken);
    expect((await getUserInfo(f.http, third.accessToken)).openId).toBe(account.openId);
  });

  it('revokes: the access token is then access_token_invalid (401) and the refresh token invalid_grant', async () => {
    const account = await f.createAccount();
    const tokens = await exchangeCode(f.http, await authorize(account.openId));
    await revokeToken(f.http, tokens.accessToken);
    const error = await rejection(getUserInfo(f.http, tokens.accessToken));
    expect(error).toMatchObject({ tiktokCode: 'access_token_invalid', httpStatus: 401, source: 'api' });
    expect(error.isAccessTokenInvalid).toBe(true);
    expect((await rejection(refreshTokens(f.http, tokens.refreshToken))).tiktokCode).toBe('invalid_grant');
  });

  it('answers access_token_invalid for an expired access token, and a refresh recovers', async () => {
    const account = await f.createAccount();
    const tokens = await exchangeCode(f.http, await authorize(account.openId));
    const expire = await fetch(`${f.emulator.url}/__control/accounts/${account.openId}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'expire_access' }),
    });
    expect(expire.status).toBe(200);
    expect((await rejection(getUserInfo(f.http, tokens.accessToken))).tiktokCode).toBe('access_token_invalid');
    const fresh = await refreshTokens(f.http, tokens.refreshToken);
    expect((await getUserInfo(f.http, fresh.accessToken)).openId).toBe(account.openId);
  });

  it('answers invalid_grant for an expired refresh token', async () => {
    const account = await f.createAccount();
    const tokens = await exchangeCode(f.http, await authorize(account.openId));
    const expire = await fetch(`${f.emulator.url}/__control/accounts/${account.openId}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'expire_refresh' }),
    });
    expect(await expire.json()).toEqual({ affected: 1 });
    expect((await rejection(refreshTokens(f.http, tokens.refreshToken))).tiktokCode).toBe('invalid_grant');
  });

  it('answers invalid_request for a JSON body (the token endpoint takes forms only)', async () => {
    const response = await fetch(`${f.emulator.url}/v2/oauth/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'invalid_request',
      log_id: expect.stringMatching(/^\d{14}[0-9A-F]+$/),
    });
  });
});
