import { Router } from '@koa/router';
import type { CoreDeps } from '../../core/context.js';
import { listWorkspacesForUser } from '../../core/identity/memberships.js';
import { createSession, signOut } from '../../core/identity/sessions.js';
import { signIn } from '../../core/identity/sign-in.js';
import { signUp } from '../../core/identity/sign-up.js';
import { findUser, toUserView } from '../../core/identity/users.js';
import { notFound } from '../../core/errors.js';
import { SignInInputSchema, SignUpInputSchema } from './auth-schema.js';
import type { AppState } from '../shared/context.js';
import { readJsonBody } from '../middleware/json-body.js';
import { bearerToken, requireSession } from '../middleware/session-auth.js';
import { noStore } from '../shared/no-store.js';
import { validate } from '../shared/validate.js';

/** What the sign-in routes need from the composition root. */
export interface AuthRouterOptions {
  deps: CoreDeps;
  /** Whether anyone may sign up with an account of their own (otherwise invitation only). */
  openSignup: boolean;
  bodyLimitBytes: number;
}

/**
 * Sign-up, sign-in and sign-out as JSON with bearer session tokens, for the CLI and for
 * scripts; the web pages wrap the same core calls in cookies.
 */
export function createAuthRouter(options: AuthRouterOptions): Router<AppState> {
  const { deps, bodyLimitBytes } = options;
  const router = new Router<AppState>({ prefix: '/auth' });

  router.post('/signup', async (ctx) => {
    const body = validate(SignUpInputSchema, (await readJsonBody(ctx, bodyLimitBytes)) ?? {}, 'body');
    const result = await signUp(deps, body, { openSignup: options.openSignup, address: ctx.ip, surface: 'rest' });
    const session = await createSession(deps, result.user.id);
    noStore(ctx);
    ctx.status = 201;
    ctx.body = {
      token: session.token,
      expiresAt: session.expiresAt,
      user: result.user,
      workspaceId: result.workspaceId,
    };
  });

  router.post('/signin', async (ctx) => {
    const body = validate(SignInInputSchema, (await readJsonBody(ctx, bodyLimitBytes)) ?? {}, 'body');
    const result = await signIn(deps, { ...body, address: ctx.ip });
    noStore(ctx);
    ctx.body = result;
  });

  router.post('/signout', async (ctx) => {
    const token = bearerToken(ctx);
    // Signing out is idempotent: an unknown or expired token is already signed out.
    if (token === undefined) await requireSession(deps, ctx);
    else await signOut(deps, token);
    ctx.status = 204;
  });

  // Who the session belongs to and where they can act: what a client needs to pick a workspace.
  router.get('/session', async (ctx) => {
    const session = await requireSession(deps, ctx);
    const user = await findUser(deps, session.userId);
    if (!user) throw notFound('User');
    noStore(ctx);
    ctx.body = {
      user: toUserView(user),
      expiresAt: session.expiresAt,
      workspaces: await listWorkspacesForUser(deps, session.userId),
    };
  });

  return router;
}
