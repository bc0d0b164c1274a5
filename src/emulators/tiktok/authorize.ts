import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { readForm } from './envelope.js';
import { escapeHtml } from './escape-html.js';
import { page } from './html-page.js';
import { KNOWN_SCOPES, type EmulatorOptions } from './options.js';
import type { EmulatorState } from './state.js';

const PARAMS = [
  'client_key',
  'scope',
  'redirect_uri',
  'state',
  'response_type',
  'code_challenge',
  'code_challenge_method',
];

/**
 * The consent stub of `www.tiktok.com/v2/auth/authorize/` (contract 1.1 and 7): a page choosing an emulated
 * account with Authorize and Cancel, whose answer redirects to `redirect_uri` with `code`, `scopes` and `state`.
 */
export function registerAuthorize(router: Router, state: EmulatorState, options: EmulatorOptions): void {
  router.get('/v2/auth/authorize/', (ctx) => {
    const query = new URLSearchParams(ctx.querystring);
    if (!checkRequest(ctx, query, options)) return;
    const hidden = PARAMS.map((name) => {
      const value = query.get(name);
      return value === null ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
    }).join('');
    const choices = [...state.accounts.values()]
      .map((a, i) => {
        const checked = i === 0 ? ' checked' : '';
        return `<label class="account"><input type="radio" name="open_id" value="${escapeHtml(a.openId)}" aria-label="${escapeHtml(`${a.displayName} (@${a.username})`)}"${checked}>
<span><b>${escapeHtml(a.displayName)}</b><br><small>@${escapeHtml(a.username)}</small></span></label>`;
      })
      .join('');
    const scopes = (query.get('scope') ?? '').split(',').filter(Boolean);
    ctx.type = 'html';
    ctx.body = page(
      'TikTok emulator: authorize',
      `<p class="note">A local emulator of TikTok's login, not TikTok: nothing is posted anywhere.</p>
<h1>Allow the app to post for you?</h1>
<p>It asks for: ${scopes.map((scope) => `<code>${escapeHtml(scope)}</code>`).join(' ') || 'nothing'}</p>
<form method="post" action="/v2/auth/authorize/">${hidden}
<fieldset><legend>Post as</legend>${choices || '<p>No emulated accounts exist yet.</p>'}</fieldset>
<p class="buttons"><button type="submit" name="decision" value="authorize">Authorize</button>
<button type="submit" name="decision" value="cancel" class="secondary">Cancel</button></p></form>`,
    );
  });

  router.post('/v2/auth/authorize/', async (ctx) => {
    const form = (await readForm(ctx)) ?? new URLSearchParams();
    if (!checkRequest(ctx, form, options)) return;
    const redirect = new URL(form.get('redirect_uri') ?? '');
    const account = state.accounts.get(form.get('open_id') ?? '');
    if (form.get('decision') !== 'authorize' || !account) {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('error_description', 'The user denied the authorization request.');
    } else {
      const scopes = (form.get('scope') ?? '').split(',').filter((s) => !account.deniedScopes.includes(s));
      const code = randomBytes(24).toString('base64url');
      state.codes.set(code, {
        code,
        openId: account.openId,
        scopes,
        redirectUri: redirect.toString(),
        codeChallenge: form.get('code_challenge') ?? undefined,
        expiresAt: Date.now() + options.codeTtlSec * 1000,
      });
      redirect.searchParams.set('code', code);
      redirect.searchParams.set('scopes', scopes.join(','));
    }
    redirect.searchParams.set('state', form.get('state') ?? '');
    ctx.redirect(redirect.toString());
  });
}

// Problems with the client or redirect URI get an error page (redirecting to an unverified URI would be an
// open redirect); the rest redirect back with `error`, as OAuth prescribes.
function checkRequest(ctx: Context, params: URLSearchParams, options: EmulatorOptions): boolean {
  const redirectUri = params.get('redirect_uri') ?? '';
  if (params.get('client_key') !== options.clientKey) return errorPage(ctx, 'invalid_client', 'Unknown client_key.');
  if (!options.redirectUris.includes(redirectUri)) {
    return errorPage(ctx, 'invalid_request', 'redirect_uri is not registered for this app.');
  }
  const fail = (error: string, description: string): boolean => {
    const url = new URL(redirectUri);
    url.searchParams.set('error', error);
    url.searchParams.set('error_description', description);
    url.searchParams.set('state', params.get('state') ?? '');
    ctx.redirect(url.toString());
    return false;
  };
  if (params.get('response_type') !== 'code') return fail('unsupported_response_type', 'response_type must be code.');
  if (!params.get('state')) return fail('invalid_request', 'state is required.');
  const scopes = (params.get('scope') ?? '').split(',').filter(Boolean);
  if (scopes.length === 0 || scopes.some((s) => !KNOWN_SCOPES.has(s))) {
    return fail('invalid_scope', 'scope is missing or names an unknown scope.');
  }
  const unapproved = scopes.filter((s) => options.unapprovedScopes.includes(s));
  if (unapproved.length > 0) {
    return fail('invalid_scope', `The app is not approved for the scope ${unapproved.join(', ')}.`);
  }
  const challenge = params.get('code_challenge');
  if (challenge !== null && params.get('code_challenge_method') !== 'S256') {
    return fail('invalid_request', 'code_challenge_method must be S256.');
  }
  return true;
}

function errorPage(ctx: Context, error: string, description: string): false {
  ctx.status = 400;
  ctx.type = 'html';
  ctx.body = page('TikTok emulator: error', `<h1>${escapeHtml(error)}</h1><p>${escapeHtml(description)}</p>`);
  return false;
}
