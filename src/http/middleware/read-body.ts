import type { Context } from 'koa';
import { AppError } from '../../core/errors.js';

/**
 * Reads the raw request body as UTF-8 text, refusing it with 413 `payload_too_large` as soon as
 * the declared or the received length passes `limitBytes` (so a huge body is never buffered).
 */
export async function readBodyText(ctx: Context, limitBytes: number): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(limitBytes: number): AppError {
  return new AppError('payload_too_large', `The request body is larger than ${limitBytes} bytes`);
}
