import type { Middleware } from 'koa';
import { AppError, type ErrorCode } from '../../core/errors.js';
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
      const { status, body, retryAfter } = toResponse(error);
      if (status >= 500) logger.error({ err: error, requestId: ctx.state.requestId }, 'request failed');
      ctx.status = status;
      ctx.body = body;
      if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
    }
  };
}

function toResponse(error: unknown): { status: number; body: ErrorBody; retryAfter?: number } {
  if (error instanceof AppError) {
    const body: ErrorBody = { code: error.code, message: error.message };
    if (error.details) body.details = error.details;
    const response = { status: STATUS_BY_CODE[error.code], body };
    return error.retryAfterSeconds === undefined ? response : { ...response, retryAfter: error.retryAfterSeconds };
  }
  const status = httpStatusOf(error);
  if (status !== undefined && status < 500) {
    const exposed = (error as { expose?: boolean; message?: string }).expose;
    const message = exposed ? String((error as Error).message) : 'The request was not accepted';
    return { status, body: { code: codeForStatus(status), message } };
  }
  return { status: 500, body: { code: 'internal_error', message: 'Something went wrong on our side' } };
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}
