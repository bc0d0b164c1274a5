import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_SECRET, graphErrorOf, Harness, REDIRECT } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(async () => {
  await h.close();
});

function tokenCall(path: string, params: Record<string, string>): Promise<Response> {
  return fetch(`${h.emulator.url}${path}?${new URLSearchParams(params).toString()}`);
}

describe('the consent page and the code exchange', () => {
  it('redirects with a code, the state and the #_ suffix, and exchanges it once for a flat token body', async () => {
    const account = await h.createAccount({ username: 'ada.posts' });
    const location = await h.consent(account.id);
    expect(location.startsWith(REDIRECT)).toBe(true);
    expect(location.endsWith('#_')).toBe(true);
    const callback = new URL(location);
    expect(callback.searchParams.get('state')).toBe('csrf-1');
    const code = callback.searchParams.get('code') ?? '';
    const first = await h.exchangeCode(code);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({
      access_token: expect.stringMatching(/^IGAA/),
      user_id: account.id,
      permissions: [
        'instagram_business_basic',
        'instagram_business_content_publish',
        'instagram_business_manage_insights',
      ],
    });
    const again = await h.exchangeCode(code);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      error_type: 'OAuthException',
      code: 400,
      error_message: 'Matching code was not found or was already used',
    });
  });

  it('answers the non-Graph error for a wrong secret and for a redirect_uri other than the consent one', async () => {
    const account = await h.createAccount();
    const code = new URL(await h.consent(account.id)).searchParams.get('code') ?? '';
    const badSecret = await h.exchangeCode(code, { client_secret: 'nope' });
    expect(await badSecret.json()).toMatchObject({
      error_type: 'OAuthException',
      code: 400,
      error_message: 'Error validating client secret.',
    });
    const badRedirect = await h.exchangeCode(code, { redirect_uri: `${REDIRECT}/` });
    expect((await badRedirect.json()) as object).toMatchObject({
      error_message: expect.stringContaining('redirect_uri is identical'),
    });
  });

  it('redirects a cancel with access_denied and user_denied', async () => {
    const account = await h.createAccount();
    const callback = new URL(await h.consent(account.id, 'cancel'));
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'access_denied',
      error_reason: 'user_denied',
      error_description: 'The user denied your request',
      state: 'csrf-1',
    });
  });

  it('shows an error page, never a redirect, for an unknown app or an unregistered redirect', async () => {
    const query = new URLSearchParams({
      client_id: 'other',
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'instagram_business_basic',
    });
    const answer = await fetch(`${h.emulator.url}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('Invalid platform app');
  });
});

describe('long-lived tokens', () => {
  it('exchanges a short-lived token for a 60-day one and refreshes it only once it is 24 h old', async () => {
    const account = await h.createAccount();
    const code = new URL(await h.consent(account.id)).searchParams.get('code') ?? '';
    const short = ((await (await h.exchangeCode(code)).json()) as { access_token: string }).access_token;
    const exchanged = await tokenCall('/access_token', {
      grant_type: 'ig_exchange_token',
      client_secret: APP_SECRET,
      access_token: short,
    });
    const long = (await exchanged.json()) as { access_token: string };
    expect(long).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 5183944 });
    const early = await tokenCall('/refresh_access_token', {
      grant_type: 'ig_refresh_token',
      access_token: long.access_token,
    });
    expect(early.status).toBe(400);
    expect((await graphErrorOf(early)).message).toContain('24 hours');
    await h.control('POST', '/__control/clock', { advanceSec: 25 * 3600 });
    const refreshed = await tokenCall('/refresh_access_token', {
      grant_type: 'ig_refresh_token',
      access_token: long.access_token,
    });
    expect(await refreshed.json()).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 5183944,
    });
  });

  it('refuses the exchange with a wrong secret (101) and answers 190/463 for an expired token', async () => {
    const { id, token } = await h.connect();
    const wrong = await tokenCall('/access_token', {
      grant_type: 'ig_exchange_token',
      client_secret: 'x',
      access_token: token,
    });
    expect(await graphErrorOf(wrong)).toMatchObject({ code: 101 });
    await h.control('POST', `/__control/accounts/${id}/tokens`, { action: 'expire' });
    const me = await h.graph('GET', '/me', token, { fields: 'id' });
    expect(me.status).toBe(400);
    expect(await graphErrorOf(me)).toMatchObject({ code: 190, error_subcode: 463 });
    const refresh = await tokenCall('/refresh_access_token', { grant_type: 'ig_refresh_token', access_token: token });
    expect(await graphErrorOf(refresh)).toMatchObject({ code: 190, error_subcode: 463 });
  });
});

describe('/me', () => {
  it('answers id (app-scoped) and user_id (professional), account_type and counts, with usage headers', async () => {
    const { id, userId, token } = await h.connect({
      username: 'maker',
      accountType: 'MEDIA_CREATOR',
      followersCount: 321,
    });
    const me = await h.graph('GET', '/me', token, {
      fields: 'user_id,username,account_type,followers_count,media_count',
    });
    expect(await me.json()).toEqual({
      id,
      user_id: userId,
      username: 'maker',
      account_type: 'MEDIA_CREATOR',
      followers_count: 321,
      media_count: 0,
    });
    expect(JSON.parse(me.headers.get('x-app-usage') ?? '{}')).toMatchObject({ call_count: expect.any(Number) });
    expect(Object.keys(JSON.parse(me.headers.get('x-business-use-case-usage') ?? '{}') as object)).toEqual([userId]);
  });

  it('lets a personal account connect, says PERSONAL, and refuses it content publishing (code 10)', async () => {
    const { userId, token } = await h.connect({ accountType: 'PERSONAL' });
    const me = await h.graph('GET', '/me', token, { fields: 'account_type' });
    expect(await me.json()).toMatchObject({ account_type: 'PERSONAL' });
    const create = await h.create(userId, token, { image_url: 'http://127.0.0.1:9/a.jpg' });
    expect(await graphErrorOf(create)).toMatchObject({ code: 10 });
  });

  it('fails the whole call on an unknown field (100), and takes the token from a Bearer header', async () => {
    const { token } = await h.connect();
    const unknown = await h.graph('GET', '/me', token, { fields: 'username,nope' });
    expect(await graphErrorOf(unknown)).toMatchObject({ code: 100, message: expect.stringContaining('(nope)') });
    const bearer = await fetch(`${h.emulator.url}/me?fields=username`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bearer.status).toBe(200);
  });

  it('answers 190 for an unknown token and 190/458 for a revoked one', async () => {
    expect(await graphErrorOf(await h.graph('GET', '/me', 'IGAAnope'))).toMatchObject({ code: 190 });
    const { id, token } = await h.connect();
    await h.control('POST', `/__control/accounts/${id}/tokens`, { action: 'revoke' });
    expect(await graphErrorOf(await h.graph('GET', '/me', token))).toMatchObject({ code: 190, error_subcode: 458 });
  });
});
