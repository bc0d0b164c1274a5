import { AppError } from '../../core/errors.js';
import { hasRequestBody, readJsonBody } from '../middleware/json-body.js';
import type { AppContext } from '../shared/context.js';
import { readFormBody } from '../web/form-body.js';

/**
 * Reads a device-flow request body sent as JSON (Postdeck's own CLI) or as the RFC 6749 form
 * every stock RFC 8628 client sends. An absent body reads as `undefined`; any other type is 415.
 */
export async function readDeviceBody(ctx: AppContext, limitBytes: number): Promise<unknown> {
  if (!hasRequestBody(ctx)) return undefined;
  if (ctx.is('application/x-www-form-urlencoded')) return readFormBody(ctx, limitBytes);
  if (!ctx.is('application/json', '+json')) {
    throw new AppError(
      'unsupported_media_type',
      'Send the request body as application/x-www-form-urlencoded or application/json',
    );
  }
  return readJsonBody(ctx, limitBytes);
}
