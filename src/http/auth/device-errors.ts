import { AppError } from '../../core/errors.js';
import { DeviceFlowError } from '../../core/device/errors.js';
import type { AppContext } from '../shared/context.js';
import { DEVICE_CODE_GRANT } from './auth-schema.js';
import { STATUS_BY_CODE } from '../shared/error-status.js';

/**
 * The start endpoint's refusals in both shapes at once: the API's `{ code, message, details }`
 * (spec 7) and RFC 6749 5.2's `{ error, error_description }`, which a stock RFC 8628 client reads.
 * Anything that is not a client's mistake goes on to the error middleware.
 */
export async function answeringStartErrors(ctx: AppContext, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof AppError) || STATUS_BY_CODE[error.code] >= 500) throw error;
    ctx.status = STATUS_BY_CODE[error.code];
    if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
    ctx.body = {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      error: error.code === 'rate_limited' ? 'slow_down' : 'invalid_request',
      error_description: descriptionText(error.message),
    };
  }
}

/**
 * The token endpoint's answers other than success, in the RFC's shape only (spec 7, rule 1): the
 * poll's own answers (400, or 429 with Retry-After when an address is throttled), and bad input as
 * 400 `invalid_request`, or `unsupported_grant_type` for another grant (RFC 6749 5.2).
 */
export async function answeringTokenErrors(ctx: AppContext, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof DeviceFlowError) {
      ctx.status = error.retryAfterSeconds === undefined ? 400 : 429;
      if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
      ctx.body = { error: error.error, error_description: descriptionText(error.description) };
      return;
    }
    if (!(error instanceof AppError) || STATUS_BY_CODE[error.code] >= 500) throw error;
    const wrongGrant = error.details?.some((detail) => detail.path.at(-1) === 'grant_type') === true;
    ctx.status = 400;
    ctx.body = wrongGrant
      ? {
          error: 'unsupported_grant_type',
          error_description: `This endpoint takes only grant_type=${DEVICE_CODE_GRANT}`,
        }
      : { error: 'invalid_request', error_description: descriptionText(error.message) };
  }
}

/** RFC 6749 5.2 allows printable ASCII but `"` and `\` in `error_description`; anything else is replaced. */
function descriptionText(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x7e]/g, '?');
}
