import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { AppContext } from '../shared/context.js';
import { CSRF_COOKIE, SESSION_COOKIE, readCookie, setCookie } from './cookies.js';

const SEED_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** The CSRF token of this request, so a page with several forms sets one seed, not several. */
const tokens = new WeakMap<AppContext, string>();

/**
 * The token every form carries in its hidden `_csrf` field. It is an HMAC of the browser's
 * session cookie keyed by a random per-browser seed in the `pd_csrf` cookie (SameSite=Strict).
 * A cross-site page can neither read the seed nor the session, so it cannot forge the token,
 * and binding to the session means a planted seed cookie alone is not enough either. No
 * server-side state or secret is needed, so any replica can check it.
 */
export function csrfToken(ctx: AppContext, secureCookies: boolean): string {
  const cached = tokens.get(ctx);
  if (cached) return cached;
  let seed = readCookie(ctx, CSRF_COOKIE);
  if (!seed || !SEED_SHAPE.test(seed)) {
    seed = randomBytes(32).toString('base64url');
    setCookie(ctx, CSRF_COOKIE, seed, { sameSite: 'Strict', secure: secureCookies });
  }
  const token = tokenFor(seed, readCookie(ctx, SESSION_COOKIE));
  tokens.set(ctx, token);
  return token;
}

/**
 * Refuses a form post (403 `forbidden`) that did not come from one of our own pages: a
 * `Sec-Fetch-Site` other than same-origin, a foreign `Origin`, or a missing or wrong `_csrf`
 * token. Browsers that send neither header are still covered by the token, compared in
 * constant time.
 */
export function assertCsrf(ctx: AppContext, form: Record<string, string>, publicUrl: string): void {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') throw refused();
  // Browsers send `Origin: null` for our own form posts, because the pages are served with
  // `Referrer-Policy: no-referrer`; that says nothing, so only a real foreign origin is refused.
  // (Koa 3's ctx.origin echoes the Origin header, so our own origin is built from the Host.)
  const origin = ctx.get('origin');
  const own = `${ctx.protocol}://${ctx.host}`;
  if (origin && origin !== 'null' && origin !== own && origin !== new URL(publicUrl).origin) throw refused();

  const seed = readCookie(ctx, CSRF_COOKIE);
  const sent = form._csrf;
  if (!seed || !SEED_SHAPE.test(seed) || !sent) throw refused();
  const expected = Buffer.from(tokenFor(seed, readCookie(ctx, SESSION_COOKIE)));
  const actual = Buffer.from(sent);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw refused();
}

function tokenFor(seed: string, session: string | undefined): string {
  return createHmac('sha256', seed)
    .update(`postdeck-csrf:${session ?? ''}`)
    .digest('base64url');
}

function refused(): AppError {
  return new AppError(
    'forbidden',
    'This form could not be verified. It may have expired or come from another site. Go back, reload the page and try again.',
  );
}
