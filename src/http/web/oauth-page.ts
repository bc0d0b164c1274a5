import type { Router } from '@koa/router';
import type { ParsedUrlQuery } from 'node:querystring';
import { AppError } from '../../core/errors.js';
import { approveAuthorization, checkAuthorizationRequest, denyAuthorization } from '../../core/oauth/authorize.js';
import { OAUTH_PATHS } from '../../core/oauth/metadata.js';
import type { AppContext, AppState } from '../shared/context.js';
import { MCP_PATH } from '../mcp-route.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { CARRIED_PARAMS, oauthConsentView } from './oauth-views.js';
import { readCheckedForm, signedInPage } from './page-context.js';
import { PAGE_CSP } from './security-headers.js';
import { workspaceParam } from './workspace.js';

/**
 * The OAuth consent page (`/oauth/authorize`): a remote MCP client sends the person here; once
 * signed in they pick the workspace and allow or deny, and the browser goes back to the client
 * with a code or an error. Errors in the request that brings them here (unknown client,
 * unregistered redirect URI, a response_type other than code, …) are shown here and never redirected.
 */
export function registerOAuthPages(router: Router<AppState>, options: WebOptions): void {
  const { deps, publicUrl } = options;
  const context = { issuer: publicUrl, resource: `${publicUrl}${MCP_PATH}` };

  router.get(OAUTH_PATHS.authorize, async (ctx) => {
    const params = carriedParams(ctx.query);
    const checked = await checkAuthorizationRequest(deps, params, context);
    // Nobody has seen the client's name yet: its errors are shown here, never redirected. The
    // name is left out of the page, since whoever registered the client chose it.
    if (!checked.ok) {
      throw new AppError(
        'invalid_request',
        `This sign-in link cannot be used: ${checked.description}. Nothing was sent back to the application.`,
      );
    }
    const page = await signedInPage(ctx, options, 'keys', workspaceParam(ctx));
    allowFormTo(ctx, checked.request.redirectUri);
    const main = oauthConsentView({
      csrf: page.csrf,
      request: checked.request,
      params,
      workspaces: page.user.workspaces,
      selectedWorkspaceId: page.workspace.workspaceId,
    });
    sendPage(ctx, { title: 'Allow an application', narrow: true, chrome: page.chrome, main });
  });

  router.post(OAUTH_PATHS.authorize, async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const checked = await checkAuthorizationRequest(deps, carriedParams(form), context);
    ctx.status = 303;
    // The person signed in and chose on the consent page that named the client: it may hear errors.
    if (!checked.ok) return ctx.redirect(checked.redirectTo);
    if (form.decision !== 'approve') return ctx.redirect(denyAuthorization(checked.request, publicUrl));
    // The chosen workspace is checked against the person's memberships before anything is granted.
    const page = await signedInPage(ctx, options, 'keys', form.workspaceId ?? '');
    const target = await approveAuthorization(deps, page.scope, page.user.userId, checked.request, publicUrl);
    ctx.redirect(target);
  });
}

function carriedParams(source: ParsedUrlQuery | Record<string, string>): Record<string, string | undefined> {
  const params: Record<string, string | undefined> = {};
  for (const name of CARRIED_PARAMS) {
    const value = source[name];
    if (typeof value === 'string') params[name] = value;
  }
  return params;
}

/**
 * Browsers apply the form-action directive to where a form's answer redirects, so the consent
 * page lets its form lead to the client's redirect URI (an origin, or a private-use scheme).
 */
function allowFormTo(ctx: AppContext, redirectUri: string): void {
  const url = new URL(redirectUri);
  const source = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  ctx.set('Content-Security-Policy', PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${source}`));
}
