import type { AppContext } from '../shared/context.js';

/** The session cookie: the opaque token from core sign-in, HttpOnly so scripts never see it. */
export const SESSION_COOKIE = 'pd_session';
/** The per-browser CSRF seed (see csrf.ts). */
export const CSRF_COOKIE = 'pd_csrf';
/** The workspace the pages show; a preference only, checked against memberships on every use. */
export const WORKSPACE_COOKIE = 'pd_ws';

/** How a cookie is sent. Path is always `/`; HttpOnly is always on (no page script reads cookies). */
export interface CookieOptions {
  sameSite: 'Strict' | 'Lax';
  secure: boolean;
  /** Lifetime in seconds; a session cookie when not given. */
  maxAgeSeconds?: number | undefined;
}

/**
 * Sets a cookie. Written by hand rather than through `ctx.cookies`, which refuses Secure
 * cookies whenever Koa sees a plain-HTTP hop, as behind a TLS-terminating proxy that is not
 * trusted for X-Forwarded-Proto; here Secure follows the public URL.
 */
export function setCookie(ctx: AppContext, name: string, value: string, options: CookieOptions): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', `SameSite=${options.sameSite}`];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`);
  if (options.secure) parts.push('Secure');
  appendSetCookie(ctx, name, parts.join('; '));
}

/** Removes a cookie from the browser. */
export function clearCookie(ctx: AppContext, name: string, secure: boolean): void {
  setCookie(ctx, name, '', { sameSite: 'Lax', secure, maxAgeSeconds: 0 });
}

/** The value of a cookie the browser sent, or undefined. */
export function readCookie(ctx: AppContext, name: string): string | undefined {
  const value = ctx.cookies.get(name, { signed: false });
  if (value === undefined || value === '') return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

// A later write of the same cookie in one response replaces the earlier one, so the browser
// never receives two conflicting Set-Cookie lines for one name.
function appendSetCookie(ctx: AppContext, name: string, line: string): void {
  const current = ctx.response.get('Set-Cookie') as string | string[] | undefined;
  const lines = (Array.isArray(current) ? current : current ? [current] : []).filter((l) => !l.startsWith(`${name}=`));
  ctx.set('Set-Cookie', [...lines, line]);
}
