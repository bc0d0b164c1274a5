import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { escapeHtml } from './escape-html.js';
import { page } from './html-page.js';
import { KNOWN_SCOPES, type InstagramEmulatorOptions } from './options.js';
import { readBodyText } from './params.js';
import type { InstagramState } from './state.js';

const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'enable_fb_login',
  'force_authentication',
];

/** Scopes as the authorize URL carries them: comma-separated or space-separated (contract 1.1). */
export function scopesOf(raw: string | null): string[] {
  return (raw ?? '').split(/[\s,]+/).filter(Boolean);
}

/**
 * The consent page of `www.instagram.com/oauth/authorize` (contract 1.1): choose an emulated account, then Allow
 * redirects to `redirect_uri?code=…&state=…#_` (a 1-hour, single-use code) and Cancel to `error=access_denied`.
 */
export function registerAuthorize(router: Router, state: InstagramState, options: InstagramEmulatorOptions): void {
  router.get('/oauth/authorize', (ctx) => {
    const query = new URLSearchParams(ctx.querystring);
    if (!checkRequest(ctx, query, options)) return;
    const hidden = PARAMS.map((name) => {
      const value = query.get(name);
      return value === null ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
    }).join('');
    const choices = [...state.accounts.values()]
      .map((a, i) => {
        const label = `${a.name} (@${a.username}, ${a.accountType})`;
        return `<label class="account"><input type="radio" name="account_id" value="${escapeHtml(a.id)}" aria-label="${escapeHtml(label)}"${i === 0 ? ' checked' : ''}>
<span><b>${escapeHtml(a.name)}</b><br><small>@${escapeHtml(a.username)} · ${escapeHtml(a.accountType)}</small></span></label>`;
      })
      .join('');
    const scopes = scopesOf(query.get('scope'));
    ctx.type = 'html';
    ctx.body = page(
      'Instagram emulator: allow access',
      `<p class="note">A local emulator of Instagram's login, not Instagram: nothing is posted anywhere.</p>
<h1>Allow the app to use your Instagram account?</h1>
<p>It asks for: ${scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')}</p>
<form method="post" action="/oauth/authorize">${hidden}
<fieldset><legend>Continue as</legend>${choices || '<p>No emulated accounts exist yet.</p>'}</fieldset>
<p class="buttons"><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="cancel" class="secondary">Cancel</button></p></form>`,
    );
  });

  router.post('/oauth/authorize', async (ctx) => {
    const form = new URLSearchParams(await readBodyText(ctx));
    if (!checkRequest(ctx, form, options)) return;
    const redirect = new URL(form.get('redirect_uri') ?? '');
    const account = state.accounts.get(form.get('account_id') ?? '');
    const stateParam = form.get('state');
    if (form.get('decision') !== 'allow' || !account) {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('error_reason', 'user_denied');
      redirect.searchParams.set('error_description', 'The user denied your request');
      if (stateParam !== null) redirect.searchParams.set('state', stateParam);
      return ctx.redirect(redirect.toString());
    }
    const code = `AQ${randomBytes(48).toString('base64url')}`;
    state.codes.set(code, {
      accountId: account.id,
      scopes: scopesOf(form.get('scope')).filter((s) => !account.deniedScopes.includes(s)),
      redirectUri: form.get('redirect_uri') ?? '',
      expiresAt: state.now() + options.codeTtlSec * 1000,
    });
    redirect.searchParams.set('code', code);
    if (stateParam !== null) redirect.searchParams.set('state', stateParam);
    // Instagram appends `#_`, which is not part of the code (contract 1.1).
    ctx.redirect(`${redirect.toString()}#_`);
  });
}

// An unknown app or unregistered redirect gets an error page (redirecting there would be an open redirect);
// other problems go back to the redirect URI with `error`, as OAuth prescribes.
function checkRequest(ctx: Context, params: URLSearchParams, options: InstagramEmulatorOptions): boolean {
  const redirectUri = params.get('redirect_uri') ?? '';
  if (params.get('client_id') !== options.appId) return errorPage(ctx, 'Invalid platform app');
  if (!options.redirectUris.includes(redirectUri)) {
    return errorPage(ctx, "Invalid redirect_uri: it is not one of the app's registered redirect URIs.");
  }
  const fail = (reason: string, description: string): false => {
    const url = new URL(redirectUri);
    url.searchParams.set('error', 'invalid_request');
    url.searchParams.set('error_reason', reason);
    url.searchParams.set('error_description', description);
    const stateParam = params.get('state');
    if (stateParam !== null) url.searchParams.set('state', stateParam);
    ctx.redirect(url.toString());
    return false;
  };
  if (params.get('response_type') !== 'code') return fail('invalid_response_type', 'response_type must be code');
  const scopes = scopesOf(params.get('scope'));
  if (scopes.length === 0 || scopes.some((s) => !KNOWN_SCOPES.has(s))) {
    return fail(
      'invalid_scope',
      `Invalid scope: ${scopes.filter((s) => !KNOWN_SCOPES.has(s)).join(', ') || 'none given'}`,
    );
  }
  return true;
}

function errorPage(ctx: Context, message: string): false {
  ctx.status = 400;
  ctx.type = 'html';
  ctx.body = page(
    'Instagram emulator: error',
    `<h1>Sorry, this page isn't available</h1><p>${escapeHtml(message)}</p>`,
  );
  return false;
}
