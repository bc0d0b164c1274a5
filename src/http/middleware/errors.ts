import type { Middleware } from 'koa';
import { AppError, toAppError, type ErrorCode } from '../../core/errors.js';
import type { Logger } from '../../logger.js';
import type { AppState } from '../shared/context.js';
import { STATUS_BY_CODE, codeForStatus } from '../shared/error-status.js';

/** The spec's error body (section 7). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: { path: (string | number)[]; message: string }[];
}

/**
 * The one error middleware: known codes become their status and the spec's body; errors with
 * an HTTP status (from Koa) keep it; anything else is a 500 that says nothing of its cause.
 */
export function errorMiddleware(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError('not_found', `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (error) {
      const { requestId } = ctx.state;
      const { status, body, retryAfter } = toResponse(error, logger, requestId);
      if (status >= 500 && error instanceof AppError) logger.error({ err: error, requestId }, 'request failed');
      ctx.status = status;
      ctx.body = body;
      if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
    }
  };
}

function toResponse(
  error: unknown,
  logger: Logger,
  requestId: string,
): { status: number; body: ErrorBody; retryAfter?: number } {
  const status = httpStatusOf(error);
  if (!(error instanceof AppError) && status !== undefined && status < 500) {
    const exposed = (error as { expose?: boolean; message?: string }).expose;
    const message = exposed ? String((error as Error).message) : 'The request was not accepted';
    return { status, body: { code: codeForStatus(status), message } };
  }
  const known = toAppError(error, logger, 'request', { requestId });
  const body: ErrorBody = { code: known.code, message: known.message };
  if (known.details) body.details = known.details;
  const response = { status: STATUS_BY_CODE[known.code], body };
  return known.retryAfterSeconds === undefined ? response : { ...response, retryAfter: known.retryAfterSeconds };
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}
