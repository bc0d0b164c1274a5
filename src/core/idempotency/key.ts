import { createHash } from 'node:crypto';
import { z } from 'zod';

/** An Idempotency-Key as clients may send it: 1–255 printable ASCII characters (space to `~`). */
export const IdempotencyKeySchema = z
  .string()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .regex(/^[\x20-\x7e]*$/, 'must be printable ASCII');

/**
 * The stored id of `key` in a workspace. Hashing keeps client text out of `_id` and gives every
 * workspace its own key space (a newline cannot occur in a key, so the join is unambiguous).
 */
export function idempotencyKeyId(workspaceId: string, key: string): string {
  return createHash('sha256').update(`${workspaceId}\n${key}`).digest('hex');
}
