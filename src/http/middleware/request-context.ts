import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger.js';
import type { AppState } from '../shared/context.js';

const CLIENT_ID_SHAPE = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * Gives each request an id (the caller's `x-request-id` when it looks sane), echoes it, and logs
 * one line per request. Only method, path, status and timing are logged: never headers, query
 * strings or bodies, which may carry keys, tokens or codes; nor the tokens of capability paths.
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
          path: loggablePath(ctx.path),
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  };
}

/** Paths that carry a credential: a media URL's token, an upload link. */
const CAPABILITY_PATHS: readonly RegExp[] = [/^(\/m\/[^/]+\/)[^/]+/, /^(\/public\/v1\/uploads\/)[^/]+/];

/** The path with any capability token replaced by `…`, so a log never grants access. */
function loggablePath(path: string): string {
  for (const pattern of CAPABILITY_PATHS) {
    if (pattern.test(path)) return path.replace(pattern, '$1…');
  }
  return path;
}
