import type { CoreDeps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { listWorkspacesForUser, type WorkspaceMembershipView } from '../../core/identity/memberships.js';
import { authenticateSession } from '../../core/identity/sessions.js';
import { findUser } from '../../core/identity/users.js';
import type { AppContext } from '../shared/context.js';
import { SESSION_COOKIE, WORKSPACE_COOKIE, clearCookie, readCookie, setCookie } from './cookies.js';
import { SignInRequired } from './sign-in-required.js';

/** The signed-in person behind a page request, with the workspaces they may pick from. */
export interface WebUser {
  userId: string;
  name: string;
  email: string | null;
  workspaces: WorkspaceMembershipView[];
}

/** The signed-in user of the `pd_session` cookie, or null; a dead session's cookie is removed. */
export async function loadWebUser(deps: CoreDeps, ctx: AppContext, secureCookies: boolean): Promise<WebUser | null> {
  const token = readCookie(ctx, SESSION_COOKIE);
  if (!token) return null;
  let userId: string;
  try {
    ({ userId } = await authenticateSession(deps, token));
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'invalid_session') throw error;
    clearCookie(ctx, SESSION_COOKIE, secureCookies);
    return null;
  }
  const user = await findUser(deps, userId);
  if (!user) return null;
  return { userId, name: user.name, email: user.email, workspaces: await listWorkspacesForUser(deps, userId) };
}

/**
 * The signed-in user, or a SignInRequired that sends the browser to /signin and back here.
 * A GET comes back to the very page; a form post (whose session ran out) to its section's
 * page, since the post itself cannot be replayed by a redirect.
 */
export async function requireWebUser(deps: CoreDeps, ctx: AppContext, secureCookies: boolean): Promise<WebUser> {
  const user = await loadWebUser(deps, ctx, secureCookies);
  if (!user) throw new SignInRequired(ctx.method === 'GET' ? ctx.originalUrl : `/${ctx.path.split('/')[1] ?? ''}`);
  return user;
}

/** Hands the browser a new session (after sign-in or sign-up); the session cookie is Lax so links from mail work. */
export function startWebSession(
  ctx: AppContext,
  session: { token: string; expiresAt: Date },
  secureCookies: boolean,
  now: Date,
): void {
  const maxAgeSeconds = (session.expiresAt.getTime() - now.getTime()) / 1000;
  setCookie(ctx, SESSION_COOKIE, session.token, { sameSite: 'Lax', secure: secureCookies, maxAgeSeconds });
}

/** Forgets the browser's session and workspace choice. */
export function endWebSession(ctx: AppContext, secureCookies: boolean): void {
  clearCookie(ctx, SESSION_COOKIE, secureCookies);
  clearCookie(ctx, WORKSPACE_COOKIE, secureCookies);
}

const NEXT_BASE = 'http://postdeck.invalid';

/**
 * A same-site path to return to after signing in, or `fallback`. Only a path on this server
 * is accepted (no scheme, no `//host`, no backslashes), so `next` cannot send anyone elsewhere.
 */
export function safeNext(raw: unknown, fallback = '/keys'): string {
  if (typeof raw !== 'string' || raw.length > 2048 || !raw.startsWith('/') || /[\\\s]/.test(raw)) return fallback;
  if (raw.startsWith('//')) return fallback;
  let url: URL;
  try {
    url = new URL(raw, NEXT_BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== NEXT_BASE) return fallback;
  if (url.pathname === '/signin' || url.pathname === '/signout' || url.pathname === '/signup') return fallback;
  return `${url.pathname}${url.search}`;
}
