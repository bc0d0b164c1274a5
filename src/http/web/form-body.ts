import { AppError } from '../../core/errors.js';
import type { AppContext } from '../shared/context.js';
import { readBodyText } from '../middleware/read-body.js';

/**
 * Reads an `application/x-www-form-urlencoded` body within `limitBytes` into a plain record.
 * A repeated field keeps its first value: the pages never send lists, and a later duplicate
 * must not override what the visible control holds.
 */
export async function readFormBody(ctx: AppContext, limitBytes: number): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new AppError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded');
  }
  const text = await readBodyText(ctx, limitBytes);
  // No prototype, so a field named `__proto__` or `constructor` is just a field.
  const form = Object.create(null) as Record<string, string>;
  for (const [key, value] of new URLSearchParams(text)) {
    if (!Object.hasOwn(form, key)) form[key] = value;
  }
  return form;
}
