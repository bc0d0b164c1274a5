import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../shared/context.js';
import { answerMetrics, METRICS_PATH, type HttpMetrics } from './exposition.js';

/** The label of a request no route matched: unknown paths must not grow the label set. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every request and reports it once its answer is sent (routes that write the response
 * themselves, MCP and the chat endpoints, included), by the matched route's pattern.
 */
export function requestMetrics(metrics: HttpMetrics): Middleware<AppState> {
  return async (ctx, next) => {
    const started = performance.now();
    ctx.res.once('close', () => {
      const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : UNMATCHED_ROUTE;
      metrics.httpRequest(ctx.method, route, ctx.res.statusCode, (performance.now() - started) / 1000);
    });
    await next();
  };
}

/** `GET /metrics`: the Prometheus text exposition, for the bearer of METRICS_TOKEN or loopback callers. */
export function createMetricsRouter(metrics: HttpMetrics, token: string | undefined): Router<AppState> {
  const router = new Router<AppState>();
  router.get(METRICS_PATH, async (ctx) => {
    ctx.respond = false;
    await answerMetrics(metrics, token, ctx.req, ctx.res);
  });
  return router;
}
