import type { Router } from '@koa/router';
import { AppError } from '../../core/errors.js';
import { createSession, signOut } from '../../core/identity/sessions.js';
import { signIn } from '../../core/identity/sign-in.js';
import { signUp } from '../../core/identity/sign-up.js';
import { canSignUpWithoutInvitation, isFreshInstall, previewInvitation } from '../../core/tenancy/onboarding.js';
import type { AppContext, AppState } from '../shared/context.js';
import { SESSION_COOKIE, WORKSPACE_COOKIE, readCookie, setCookie } from './cookies.js';
import { csrfToken } from './csrf.js';
import { fieldErrors, waitText } from './forms.js';
import { signInView, signUpClosedView, signUpView, type SignUpView } from './auth-views.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm } from './page-context.js';
import { SignInFormSchema, SignUpFormSchema } from './schema.js';
import { endWebSession, loadWebUser, safeNext, startWebSession } from './session.js';

/** /, /signin, /signup and /signout: the cookie-session wrappers around core sign-in and sign-up. */
export function registerAuthPages(router: Router<AppState>, options: WebOptions): void {
  const { deps, secureCookies } = options;

  router.get('/', async (ctx) => {
    ctx.status = 303;
    // A fresh install has no one to sign in: its first person signs up and owns it.
    const signedIn = await loadWebUser(deps, ctx, secureCookies);
    ctx.redirect(signedIn ? '/keys' : (await isFreshInstall(deps)) ? '/signup' : '/signin');
  });

  router.get('/signin', async (ctx) => {
    const next = safeNext(ctx.query.next);
    if (await loadWebUser(deps, ctx, secureCookies)) return redirect(ctx, next);
    const info = next.startsWith('/device') ? 'Sign in to approve the device that asked for access.' : undefined;
    sendPage(ctx, {
      title: 'Sign in',
      narrow: true,
      main: signInView({ csrf: csrfToken(ctx, secureCookies), next, info }),
    });
  });

  router.post('/signin', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const next = safeNext(form.next);
    const again = (status: number, error: string) =>
      sendPage(ctx, {
        title: 'Sign in',
        narrow: true,
        status,
        main: signInView({ csrf: csrfToken(ctx, secureCookies), next, email: form.email, error }),
      });
    const parsed = SignInFormSchema.safeParse(form);
    if (!parsed.success) return again(400, 'Enter your email address and password.');
    try {
      const session = await signIn(deps, { ...parsed.data, address: ctx.ip });
      startWebSession(ctx, session, secureCookies, deps.now());
      redirect(ctx, next);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'invalid_credentials') return again(401, 'The email or password is not correct.');
      if (error.code !== 'rate_limited') throw error;
      ctx.set('Retry-After', String(error.retryAfterSeconds ?? 60));
      again(429, `Too many failed sign-ins. Try again in ${waitText(error.retryAfterSeconds)}.`);
    }
  });

  router.get('/signup', async (ctx) => {
    const next = safeNext(ctx.query.next);
    if (await loadWebUser(deps, ctx, secureCookies)) return redirect(ctx, next);
    const open = await canSignUpWithoutInvitation(deps, options.openSignup);
    const main = open ? signUpView({ csrf: csrfToken(ctx, secureCookies), next }) : signUpClosedView(next);
    sendPage(ctx, { title: 'Create account', narrow: true, main });
  });

  router.post('/signup', async (ctx) => {
    const form = await readCheckedForm(ctx, options);
    const view: SignUpView = {
      csrf: csrfToken(ctx, secureCookies),
      next: safeNext(form.next),
      values: { name: form.name, email: form.email },
      invitation: form.invitation ? await invitationFor(options, form.invitation) : undefined,
    };
    const again = (status: number, extra: Partial<SignUpView>) =>
      sendPage(ctx, { title: 'Create account', narrow: true, status, main: signUpView({ ...view, ...extra }) });
    const parsed = SignUpFormSchema.safeParse(form);
    if (!parsed.success) return again(400, { errors: fieldErrors(parsed.error) });
    try {
      const result = await signUp(deps, parsed.data, { openSignup: options.openSignup, address: ctx.ip });
      startWebSession(ctx, await createSession(deps, result.user.id), secureCookies, deps.now());
      setCookie(ctx, WORKSPACE_COOKIE, result.workspaceId, { sameSite: 'Lax', secure: secureCookies });
      redirect(ctx, view.next);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'conflict')
        return again(409, { errors: { email: 'An account with this email already exists. Sign in instead.' } });
      if (error.code === 'not_found')
        return again(404, { error: 'This invitation link is no longer valid. Ask for a new one.' });
      if (error.code === 'forbidden') return again(403, { error: error.message });
      if (error.code === 'invalid_request') return again(400, { error: error.message });
      throw error;
    }
  });

  router.post('/signout', async (ctx) => {
    await readCheckedForm(ctx, options);
    const token = readCookie(ctx, SESSION_COOKIE);
    if (token) await signOut(deps, token);
    endWebSession(ctx, secureCookies);
    redirect(ctx, '/signin');
  });
}

/** The invitation a sign-up form carries, for its heading; a dead one is left to signUp to report. */
async function invitationFor(options: WebOptions, token: string): Promise<SignUpView['invitation']> {
  try {
    return { token, preview: await previewInvitation(options.deps, token) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  }
}

/** A 303 to a same-site path: after a form post the browser follows with a GET. */
export function redirect(ctx: AppContext, path: string): void {
  ctx.status = 303;
  ctx.redirect(path);
}
