import type Router from '@koa/router';
import type { Context } from 'koa';
import { graphError } from './graph-error.js';
import type { InstagramEmulatorOptions } from './options.js';
import { readParams } from './params.js';
import { newToken, type Account, type Grant, type InstagramState } from './state.js';

/** The code exchange's own error body, which is not the Graph `error` object (contract 1.2). */
function oauthError(ctx: Context, message: string): void {
  ctx.status = 400;
  ctx.body = { error_type: 'OAuthException', code: 400, error_message: message };
}

/** The code exchange's form: urlencoded or multipart (Meta's docs show `curl -F`). */
async function readForm(ctx: Context): Promise<Map<string, string> | undefined> {
  if (ctx.is('multipart/form-data')) {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) chunks.push(chunk);
    const form = await new Response(Buffer.concat(chunks), {
      headers: { 'content-type': ctx.get('content-type') },
    }).formData();
    return new Map([...form.entries()].map(([k, v]) => [k, typeof v === 'string' ? v : '']));
  }
  return readParams(ctx);
}

function issue(state: InstagramState, account: Account, scopes: string[], kind: Grant['kind'], ttlSec: number): Grant {
  const now = state.now();
  const grant: Grant = {
    token: newToken(),
    kind,
    accountId: account.id,
    scopes,
    issuedAt: now,
    expiresAt: now + ttlSec * 1000,
    revoked: false,
  };
  state.grants.push(grant);
  return grant;
}

/**
 * The token endpoints (contract 1.2 to 1.4): `POST /oauth/access_token` (api.instagram.com: code to short-lived
 * token), `GET /access_token` (`ig_exchange_token`: short-lived to 60-day) and `GET /refresh_access_token`
 * (`ig_refresh_token`, once a long-lived token is 24 h old).
 */
export function registerOAuthToken(router: Router, state: InstagramState, options: InstagramEmulatorOptions): void {
  router.post('/oauth/access_token', async (ctx) => {
    let form: Map<string, string> | undefined;
    try {
      form = await readForm(ctx);
    } catch {
      form = undefined;
    }
    if (!form) return oauthError(ctx, 'The request body could not be read');
    for (const name of ['client_id', 'client_secret', 'grant_type', 'redirect_uri', 'code']) {
      if (!form.get(name)) return oauthError(ctx, `Missing required parameter: ${name}`);
    }
    if (form.get('client_id') !== options.appId) return oauthError(ctx, 'Invalid platform app');
    if (form.get('client_secret') !== options.appSecret) return oauthError(ctx, 'Error validating client secret.');
    if (form.get('grant_type') !== 'authorization_code') return oauthError(ctx, 'Unsupported grant_type');
    // Clients often keep Instagram's `#_` on the code; it is not part of it (contract 1.1).
    const codeText = (form.get('code') ?? '').replace(/#_$/, '');
    const code = state.codes.get(codeText);
    const account = code && state.accounts.get(code.accountId);
    if (!code || !account || code.expiresAt <= state.now()) {
      return oauthError(ctx, 'Matching code was not found or was already used');
    }
    if (code.redirectUri !== form.get('redirect_uri')) {
      return oauthError(
        ctx,
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
      );
    }
    state.codes.delete(codeText);
    const grant = issue(state, account, code.scopes, 'short', options.shortTokenTtlSec);
    ctx.body = { access_token: grant.token, user_id: account.id, permissions: code.scopes };
  });

  router.get('/access_token', async (ctx) => {
    const params = await readParams(ctx);
    if (params.get('grant_type') !== 'ig_exchange_token') {
      return graphError(ctx, { code: 100, message: '(#100) grant_type must be ig_exchange_token' });
    }
    if (params.get('client_secret') !== options.appSecret) {
      return graphError(ctx, { code: 101, message: 'Error validating client secret.' });
    }
    const grant = liveGrant(ctx, state, params.get('access_token'));
    if (!grant) return;
    if (grant.kind !== 'short') {
      return graphError(ctx, { code: 100, message: '(#100) Only a short-lived access token can be exchanged' });
    }
    const account = state.accounts.get(grant.accountId) as Account;
    const long = issue(state, account, grant.scopes, 'long', options.longTokenTtlSec);
    ctx.body = { access_token: long.token, token_type: 'bearer', expires_in: options.longTokenTtlSec };
  });

  router.get('/refresh_access_token', async (ctx) => {
    const params = await readParams(ctx);
    if (params.get('grant_type') !== 'ig_refresh_token') {
      return graphError(ctx, { code: 100, message: '(#100) grant_type must be ig_refresh_token' });
    }
    const grant = liveGrant(ctx, state, params.get('access_token'));
    if (!grant) return;
    if (grant.kind !== 'long') {
      return graphError(ctx, { code: 100, message: '(#100) Only a long-lived access token can be refreshed' });
    }
    if (state.now() - grant.issuedAt < options.refreshMinAgeSec * 1000) {
      return graphError(ctx, {
        code: 100,
        message: '(#100) The access token can be refreshed only once it is at least 24 hours old',
      });
    }
    if (!grant.scopes.includes('instagram_business_basic')) {
      return graphError(ctx, { code: 10, message: '(#10) Refreshing needs the instagram_business_basic permission' });
    }
    const account = state.accounts.get(grant.accountId) as Account;
    const renewed = issue(state, account, grant.scopes, 'long', options.longTokenTtlSec);
    ctx.body = { access_token: renewed.token, token_type: 'bearer', expires_in: options.longTokenTtlSec };
  });
}

/** The grant of a token that is known, not revoked and not expired; otherwise answers 190 (463 when expired). */
function liveGrant(ctx: Context, state: InstagramState, token: string | undefined): Grant | undefined {
  const grant = token ? state.grantOf(token) : undefined;
  if (!grant || grant.revoked || !state.accounts.has(grant.accountId)) return void graphError(ctx, { code: 190 });
  if (grant.expiresAt <= state.now()) {
    return void graphError(ctx, {
      code: 190,
      subcode: 463,
      message: `Error validating access token: Session has expired on ${new Date(grant.expiresAt).toUTCString()}.`,
    });
  }
  return grant;
}
