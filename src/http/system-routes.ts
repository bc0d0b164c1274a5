import { Router } from '@koa/router';
import type { AppState } from './shared/context.js';
import { REFERENCE_ASSETS, REFERENCE_CSP, REFERENCE_PAGE } from './api/reference-page.js';
import { PUBLIC_PREFIX } from './api/public-router.js';

/** Where a process is in its life: only a `ready` one should get traffic from a load balancer. */
export type ProcessPhase = 'starting' | 'ready' | 'draining';

/** A hung database must answer 503 well within a load balancer's check timeout (Docker's is 5 s here). */
const DATABASE_CHECK_MS = 2_000;

/** Probes and documentation: no API key needed. */
export function createSystemRouter(options: {
  checkDatabase: () => Promise<void>;
  /** The process's phase; always `ready` when not given (an app without a process around it). */
  phase?: (() => ProcessPhase) | undefined;
  openApiDocument: object;
}): Router<AppState> {
  const router = new Router<AppState>();

  // Browsers ask for it on every page; an empty answer beats a JSON 404 in their console.
  router.get('/favicon.ico', (ctx) => {
    ctx.status = 204;
  });
  // Liveness: the process runs and its event loop turns, even while it starts or drains.
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  // Readiness: whether a load balancer should send requests here now.
  router.get('/readyz', async (ctx) => {
    const phase = options.phase?.() ?? 'ready';
    const reason = phase === 'ready' ? await databaseProblem(options.checkDatabase) : phase;
    if (reason === undefined) {
      ctx.body = { status: 'ready' };
      return;
    }
    ctx.status = 503;
    ctx.set('cache-control', 'no-store');
    ctx.body = { code: 'not_ready', reason, message: NOT_READY[reason] };
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

type NotReadyReason = 'starting' | 'draining' | 'database_unreachable';

const NOT_READY: Record<NotReadyReason, string> = {
  starting: 'Postdeck is starting',
  draining: 'Postdeck is shutting down and finishing the requests it has',
  database_unreachable: 'The database is not reachable',
};

/** `database_unreachable` when the database fails or does not answer the ping within DATABASE_CHECK_MS. */
async function databaseProblem(checkDatabase: () => Promise<void>): Promise<'database_unreachable' | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DATABASE_CHECK_MS);
  });
  const answered = checkDatabase().then(
    () => true,
    () => false,
  );
  const ok = await Promise.race([answered, timedOut]);
  clearTimeout(timer);
  return ok ? undefined : 'database_unreachable';
}
