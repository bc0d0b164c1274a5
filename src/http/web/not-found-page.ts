import type { Middleware } from 'koa';
import type { AppState } from '../shared/context.js';
import { isPageLoad } from '../shared/page-load.js';
import { markup } from './html.js';
import { sendPage } from './layout.js';
import { PAGE_CSP } from './security-headers.js';

/** Paths whose callers are programs: they keep the API's JSON `not_found`. */
const API_PATHS = /^\/(?:public\/|auth\/|mcp|m\/|oauth\/|\.well-known\/|slack\/|discord\/)/;

/**
 * A page load nothing answered gets an HTML 404 page with a way back, not the API's JSON error.
 * Mounted last; API paths, and requests that do not ask for HTML, fall through to the JSON answer.
 */
export function htmlNotFound(): Middleware<AppState> {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined || !isPageLoad(ctx) || API_PATHS.test(ctx.path)) return;
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('Cache-Control', 'no-store');
    sendPage(ctx, {
      title: 'Page not found',
      narrow: true,
      status: 404,
      main: markup`<h1>Page not found</h1>
        <p>There is no page at <code>${ctx.path}</code>.</p>
        <p><a href="/">Go to Postdeck</a> · <a href="/public/v1/docs">API reference</a></p>`,
    });
  };
}
