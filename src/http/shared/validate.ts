import type { z } from 'zod';
import { invalidRequest } from '../../core/errors.js';
import { issuesOf } from '../../core/operations/input.js';

/** Parses `value` with `schema`, turning every issue into the spec's `details` list, `where` first. */
export function validate<T>(schema: z.ZodType<T>, value: unknown, where: 'body' | 'query' | 'params' | 'headers'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalidRequest(issuesOf(result.error).map((issue) => ({ ...issue, path: [where, ...issue.path] })));
}
