import type { Middleware } from 'koa';
import type { AppState } from '../shared/context.js';
import { isPageLoad } from '../shared/page-load.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Sends a browser that reached the server under another loopback name (127.0.0.1 when PUBLIC_URL
 * says localhost, or the other way round) to PUBLIC_URL's: cookies belong to one host name, so
 * signing in under one and coming back under the other loses the session. Only page loads (GET or
 * HEAD asking for HTML) on the same port move; API calls answer wherever they arrive.
 */
export function canonicalLoopbackHost(publicUrl: string): Middleware<AppState> {
  const canonical = new URL(publicUrl);
  const applies = LOOPBACK_NAMES.has(canonical.hostname);
  const port = portOf(canonical.host, canonical.protocol);
  return async (ctx, next) => {
    if (
      applies &&
      isPageLoad(ctx) &&
      ctx.accepts(['html', 'json']) === 'html' &&
      LOOPBACK_NAMES.has(ctx.hostname === '::1' ? '[::1]' : ctx.hostname) &&
      ctx.host !== canonical.host &&
      portOf(ctx.host, canonical.protocol) === port
    ) {
      ctx.status = 308;
      ctx.redirect(`${canonical.origin}${ctx.originalUrl}`);
      return;
    }
    await next();
  };
}

/** The port of a Host header value, or the protocol's default. */
function portOf(host: string, protocol: string): string {
  const port = /:(\d+)$/.exec(host)?.[1];
  return port ?? (protocol === 'https:' ? '443' : '80');
}
