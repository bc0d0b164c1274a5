import type { Middleware } from 'koa';
import type { AppState } from '../shared/context.js';

/**
 * The pages' content security policy: nothing but our own stylesheet, images and script files
 * (the Copy buttons' script; never inline script, and `nosniff` keeps an uploaded file from
 * running as one), forms only to ourselves, never framed, no <base> tricks.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Headers on every web page. Pages are `no-store`: they carry CSRF tokens, invite links and
 * device codes, none of which may linger in a cache. No referrer leaves the site, so a code or
 * invite token in a URL is never handed to another origin.
 */
export function securityHeaders(): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    await next();
  };
}
