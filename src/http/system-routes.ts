import { Router } from '@koa/router';
import type { AppState } from './shared/context.js';
import { REFERENCE_ASSETS, REFERENCE_CSP, REFERENCE_PAGE } from './api/reference-page.js';
import { PUBLIC_PREFIX } from './api/public-router.js';

/** Probes and documentation: no API key needed. */
export function createSystemRouter(options: {
  checkDatabase: () => Promise<void>;
  openApiDocument: object;
}): Router<AppState> {
  const router = new Router<AppState>();

  // Browsers ask for it on every page; an empty answer beats a JSON 404 in their console.
  router.get('/favicon.ico', (ctx) => {
    ctx.status = 204;
  });
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      await options.checkDatabase();
      ctx.body = { status: 'ready' };
    } catch {
      ctx.status = 503;
      ctx.body = { code: 'not_ready', message: 'The database is not reachable' };
    }
  });
  router.get(`${PUBLIC_PREFIX}/openapi.json`, (ctx) => {
    ctx.body = options.openApiDocument;
  });
  router.get(`${PUBLIC_PREFIX}/docs`, (ctx) => {
    ctx.type = 'html';
    ctx.set('content-security-policy', REFERENCE_CSP);
    ctx.body = REFERENCE_PAGE;
  });
  router.get(`${PUBLIC_PREFIX}/docs/redoc.standalone.js`, (ctx) => {
    ctx.type = 'application/javascript';
    ctx.set('cache-control', 'public, max-age=86400');
    ctx.body = REFERENCE_ASSETS.redoc;
  });
  router.get(`${PUBLIC_PREFIX}/docs/init.js`, (ctx) => {
    ctx.type = 'application/javascript';
    ctx.body = REFERENCE_ASSETS.init;
  });
  return router;
}
