import type { Middleware } from 'koa';
import { AppError, toAppError } from '../../core/errors.js';
import type { Logger } from '../../logger.js';
import type { AppState } from '../shared/context.js';
import { STATUS_BY_CODE } from '../shared/error-status.js';
import { markup } from './html.js';
import { sendPage } from './layout.js';
import { SignInRequired } from './sign-in-required.js';

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Already done',
  413: 'Too large',
  415: 'Not a form',
  429: 'Too many attempts',
};

/**
 * The pages' error handler: the same codes as the API, rendered as a short HTML page with the
 * same status instead of JSON. AppError messages are written for people and carry no secrets;
 * anything else is a 500 that says nothing of its cause and is logged with the request id.
 */
export function webErrors(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof SignInRequired) {
        ctx.status = 303;
        ctx.redirect(`/signin?next=${encodeURIComponent(error.next)}`);
        return;
      }
      let status: number;
      let message: string;
      if (!(error instanceof AppError) && isClientHttpError(error)) {
        status = error.status;
        message = 'The request was not accepted.';
      } else {
        const known = toAppError(error, logger, 'page', { requestId: ctx.state.requestId });
        status = STATUS_BY_CODE[known.code];
        message = known.message;
        if (known.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(known.retryAfterSeconds));
      }
      sendPage(ctx, {
        title: TITLES[status] ?? 'Something went wrong',
        narrow: true,
        status,
        main: markup`<h1>${TITLES[status] ?? 'Something went wrong'}</h1>
          <div class="notice error" role="alert" aria-live="assertive">${message}</div>
          <p><a href="/">Back to Postdeck</a></p>`,
      });
    }
  };
}

function isClientHttpError(error: unknown): error is { status: number } {
  if (typeof error !== 'object' || error === null) return false;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
