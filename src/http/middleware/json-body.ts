import type { Context } from 'koa';
import { AppError } from '../../core/errors.js';
import { readBodyText } from './read-body.js';

/**
 * Reads a JSON request body within `limitBytes`. An absent body reads as `undefined` (the
 * schema decides whether that is allowed); a body that is not JSON-typed is 415, too large 413,
 * malformed 400 `invalid_request`. The stream is read here, not by a generic parser, so each
 * failure gets the spec's error shape.
 */
export async function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  if (!hasRequestBody(ctx)) return undefined;

  if (!ctx.is('application/json', '+json')) {
    throw new AppError('unsupported_media_type', 'Send the request body as application/json');
  }
  const text = await readBodyText(ctx, limitBytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('invalid_request', 'The request body is not valid JSON', [
      { path: [], message: 'malformed JSON' },
    ]);
  }
}

/** Whether the request carries a body at all (chunked, or a non-zero Content-Length). */
export function hasRequestBody(ctx: Context): boolean {
  const headers = ctx.req.headers;
  const declaredLength = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  return headers['transfer-encoding'] !== undefined || (declaredLength !== undefined && declaredLength > 0);
}
