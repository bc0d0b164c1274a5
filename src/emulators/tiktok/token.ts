import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { oauthError, readForm } from './envelope.js';
import type { EmulatorOptions } from './options.js';
import { newToken, type EmulatorState, type Grant } from './state.js';

/**
 * `POST /v2/oauth/token/` and `POST /v2/oauth/revoke/` (contract 1.2, 1.3, 7): form bodies, the flat token
 * JSON, single-use codes, refresh-token rotation and the OAuth error body. TikTok does not document the HTTP
 * statuses of OAuth errors, so the emulator uses RFC 6749's (400, and 401 for a bad client).
 */
export function registerToken(router: Router, state: EmulatorState, options: EmulatorOptions): void {
  router.post('/v2/oauth/token/', async (ctx) => {
    const form = await clientForm(ctx, options);
    if (!form) return;
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') return exchangeCode(ctx, form, state, options);
    if (grantType === 'refresh_token') return refresh(ctx, form, state, options);
    oauthError(ctx, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  });

  router.post('/v2/oauth/revoke/', async (ctx) => {
    const form = await clientForm(ctx, options);
    if (!form) return;
    const token = form.get('token');
    if (!token) return oauthError(ctx, 400, 'invalid_request', 'token is required.');
    // Revoking ends the whole authorization ("the app disappears from the user's connected apps").
    const grant = state.grantByAccess(token);
    if (grant) state.revokeGrant(grant);
    ctx.status = 200;
    ctx.body = {};
  });
}

// The form body with a valid client, or undefined after answering the error.
async function clientForm(ctx: Context, options: EmulatorOptions): Promise<URLSearchParams | undefined> {
  const form = await readForm(ctx);
  if (!form) {
    oauthError(ctx, 400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
    return undefined;
  }
  if (
    form.get('client_key') !== options.clientKey ||
    !sameText(form.get('client_secret') ?? '', options.clientSecret)
  ) {
    oauthError(ctx, 401, 'invalid_client', 'Client key or secret is invalid.');
    return undefined;
  }
  return form;
}

function exchangeCode(ctx: Context, form: URLSearchParams, state: EmulatorState, options: EmulatorOptions): void {
  const code = state.codes.get(form.get('code') ?? '');
  // Deleted before any check, so a code is spent by its first use even when that use fails.
  if (code) state.codes.delete(code.code);
  if (!code || code.expiresAt <= Date.now()) {
    return oauthError(ctx, 400, 'invalid_grant', 'Authorization code is expired, used or invalid.');
  }
  if (form.get('redirect_uri') !== code.redirectUri) {
    return oauthError(ctx, 400, 'invalid_grant', 'Redirect_uri is not matched with the uri when requesting code.');
  }
  if (code.codeChallenge !== undefined && !pkceMatches(code.codeChallenge, form.get('code_verifier') ?? '')) {
    return oauthError(ctx, 400, 'invalid_grant', 'code_verifier does not match the code_challenge.');
  }
  if (injected(ctx, state, code.openId)) return;
  issue(ctx, state, options, code.openId, code.scopes);
}

function refresh(ctx: Context, form: URLSearchParams, state: EmulatorState, options: EmulatorOptions): void {
  const grant = state.grantByRefresh(form.get('refresh_token') ?? '');
  if (!grant || grant.refreshExpiresAt <= Date.now()) {
    return oauthError(ctx, 400, 'invalid_grant', 'Refresh token is invalid or expired.');
  }
  if (injected(ctx, state, grant.openId)) return;
  // Rotation (contract 1.2, Nov 2026): the new refresh token replaces the old one, which stops working.
  grant.refreshToken = newToken('rft.');
  grant.accessToken = newToken('act.');
  grant.accessExpiresAt = Date.now() + options.accessTtlSec * 1000;
  state.save();
  respond(ctx, grant, options);
}

function issue(ctx: Context, state: EmulatorState, options: EmulatorOptions, openId: string, scopes: string[]): void {
  const now = Date.now();
  const grant: Grant = {
    id: randomBytes(8).toString('hex'),
    accessToken: newToken('act.'),
    refreshToken: newToken('rft.'),
    openId,
    scopes,
    accessExpiresAt: now + options.accessTtlSec * 1000,
    refreshExpiresAt: now + options.refreshTtlSec * 1000,
    revoked: false,
  };
  state.grants.push(grant);
  state.save();
  respond(ctx, grant, options);
}

function respond(ctx: Context, grant: Grant, options: EmulatorOptions): void {
  ctx.status = 200;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = {
    access_token: grant.accessToken,
    expires_in: options.accessTtlSec,
    open_id: grant.openId,
    refresh_expires_in: Math.max(0, Math.floor((grant.refreshExpiresAt - Date.now()) / 1000)),
    refresh_token: grant.refreshToken,
    scope: grant.scopes.join(','),
    token_type: 'Bearer',
  };
}

function injected(ctx: Context, state: EmulatorState, openId: string): boolean {
  const failure = state.takeFailure(openId, 'token');
  if (failure) oauthError(ctx, failure.status, failure.code, 'Injected failure.');
  return failure !== undefined;
}

// TikTok's desktop doc builds the challenge as hex SHA-256; RFC 7636's base64url is accepted too
// because the contract says to tolerate both readings.
function pkceMatches(challenge: string, verifier: string): boolean {
  const digest = createHash('sha256').update(verifier).digest();
  return challenge === digest.toString('hex') || challenge === digest.toString('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
