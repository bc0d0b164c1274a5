import type { Context } from 'koa';
import { AppError } from '../../core/errors.js';

/**
 * Reads a JSON request body within `limitBytes`. An absent body reads as `undefined` (the
 * schema decides whether that is allowed); a body that is not JSON-typed is 415, too large 413,
 * malformed 400 `invalid_request`. The stream is read here, not by a generic parser, so each
 * failure gets the spec's error shape.
 */
export async function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  const headers = ctx.req.headers;
  const declaredLength = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const hasBody = headers['transfer-encoding'] !== undefined || (declaredLength !== undefined && declaredLength > 0);
  if (!hasBody) return undefined;

  if (!ctx.is('application/json', '+json')) {
    throw new AppError('unsupported_media_type', 'Send the request body as application/json');
  }
  if (declaredLength !== undefined && declaredLength > limitBytes) throw tooLarge(limitBytes);

  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('invalid_request', 'The request body is not valid JSON', [
      { path: [], message: 'malformed JSON' },
    ]);
  }
}

function tooLarge(limitBytes: number): AppError {
  return new AppError('payload_too_large', `The request body is larger than ${limitBytes} bytes`);
}
