import { AppError } from '../../core/errors.js';
import type { AppContext } from '../context.js';

/**
 * Reads an `application/x-www-form-urlencoded` body within `limitBytes` into a plain record.
 * A repeated field keeps its first value: the pages never send lists, and a later duplicate
 * must not override what the visible control holds.
 */
export async function readFormBody(ctx: AppContext, limitBytes: number): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new AppError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded');
  }
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  // No prototype, so a field named `__proto__` or `constructor` is just a field.
  const form = Object.create(null) as Record<string, string>;
  for (const [key, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
    if (!Object.hasOwn(form, key)) form[key] = value;
  }
  return form;
}

function tooLarge(limitBytes: number): AppError {
  return new AppError('payload_too_large', `The form is larger than ${limitBytes} bytes`);
}
