import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger.js';
import type { AppState } from '../shared/context.js';

const CLIENT_ID_SHAPE = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * Gives each request an id (the caller's `x-request-id` when it looks sane), echoes it, and logs
 * one line per request. Only method, path, status and timing are logged: never headers, query
 * strings or bodies, which may carry keys, tokens or codes.
 */
export function requestContext(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = CLIENT_ID_SHAPE.test(incoming) ? incoming : randomUUID();
    ctx.set('x-request-id', ctx.state.requestId);
    ctx.set('x-content-type-options', 'nosniff');
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  };
}
