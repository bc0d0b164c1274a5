import type { Router } from '@koa/router';
import { AppError } from '../../core/errors.js';
import { acceptInvitation } from '../../core/identity/invitations.js';
import { previewInvitation, type InvitationPreview } from '../../core/tenancy/onboarding.js';
import type { AppContext, AppState } from '../shared/context.js';
import { redirect } from './auth-pages.js';
import { roleName, signUpView } from './auth-views.js';
import { WORKSPACE_COOKIE, setCookie } from './cookies.js';
import { csrfToken } from './csrf.js';
import { csrfField, hidden, notice } from './forms.js';
import { markup } from './html.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm } from './page-context.js';
import { loadWebUser, requireWebUser, type WebUser } from './session.js';

const JOINED = '/members?notice=joined';

/**
 * The invite link `/invite?token=…`. The token rides in the query string, not the path,
 * because request logs record paths and never query strings. Signed in: an Accept button;
 * signed out: the sign-up form for the invitation, or sign in and come back.
 */
export function registerInvitePages(router: Router<AppState>, options: WebOptions): void {
  const { deps, secureCookies } = options;

  router.get('/invite', async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const preview = await previewOrNotFound(options, token);
    const user = await loadWebUser(deps, ctx, secureCookies);
    if (user) return acceptPage(ctx, options, user, token, preview);
    sendPage(ctx, {
      title: 'Join a workspace',
      narrow: true,
      main: signUpView({ csrf: csrfToken(ctx, secureCookies), next: JOINED, invitation: { token, preview } }),
    });
  });

  router.post('/invite', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const user = await requireWebUser(deps, ctx, secureCookies);
    const token = form.token ?? '';
    const preview = await previewOrNotFound(options, token);
    try {
      const joined = await acceptInvitation(deps, { token, userId: user.userId });
      setCookie(ctx, WORKSPACE_COOKIE, joined.workspaceId, { sameSite: 'Lax', secure: secureCookies });
      redirect(ctx, JOINED);
    } catch (error) {
      if (!(error instanceof AppError) || (error.code !== 'conflict' && error.code !== 'forbidden')) throw error;
      acceptPage(ctx, options, user, token, preview, error.message, error.code === 'conflict' ? 409 : 403);
    }
  });
}

async function previewOrNotFound(options: WebOptions, token: string): Promise<InvitationPreview> {
  if (!token || token.length > 200) throw invalidLink();
  try {
    return await previewInvitation(options.deps, token);
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') throw invalidLink();
    throw error;
  }
}

function acceptPage(
  ctx: AppContext,
  options: WebOptions,
  user: WebUser,
  token: string,
  preview: InvitationPreview,
  error?: string,
  status = 200,
): void {
  sendPage(ctx, {
    title: 'Join a workspace',
    narrow: true,
    status,
    main: markup`<h1>Join ${preview.workspaceName}</h1>
      <div class="card">
        ${notice(error)}
        <p>
          You were invited to join <strong>${preview.workspaceName}</strong> as ${roleName(preview.role)}. You are
          signed in as <strong>${user.email ?? user.name}</strong>.
        </p>
        <form method="post" action="/invite">
          ${csrfField(csrfToken(ctx, options.secureCookies))}${hidden('token', token)}
          <div class="actions"><button type="submit" class="primary">Join ${preview.workspaceName}</button></div>
        </form>
      </div>`,
  });
}

function invalidLink(): AppError {
  return new AppError(
    'not_found',
    'This invitation link is not valid any more: it was used, withdrawn or has expired. Ask for a new one.',
  );
}
