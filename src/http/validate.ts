import type { z } from 'zod';
import { AppError, type IssueDetail } from '../core/errors.js';

/** Parses `value` with `schema`, turning every issue into the spec's `details` list. */
export function validate<T>(schema: z.ZodType<T>, value: unknown, where: 'body' | 'query' | 'params' | 'headers'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: IssueDetail[] = result.error.issues.map((issue) => ({
    path: [where, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))],
    message: issue.message,
  }));
  const summary = details.map((d) => `${d.path.join('.')}: ${d.message}`).join('; ');
  throw new AppError('invalid_request', `The request is not valid (${summary})`, details);
}
