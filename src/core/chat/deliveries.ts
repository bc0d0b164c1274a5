import type { CoreDeps } from '../context.js';
import { isDuplicateKeyError } from '../errors.js';

/** How long a chat delivery's id is remembered: Slack retries for about an hour at most. */
export const DELIVERY_MEMORY_MS = 2 * 60 * 60_000;

/**
 * True the first time a chat delivery (`slack:<team>:<trigger>`, `discord:<interaction id>`) is seen:
 * a retried or replayed delivery is acknowledged and does nothing. Decided by an insert-once `_id`.
 */
export async function isFirstDelivery(deps: CoreDeps, deliveryId: string): Promise<boolean> {
  const now = deps.now();
  try {
    await deps.db.chatDeliveries.insertOne({
      _id: deliveryId,
      expiresAt: new Date(now.getTime() + DELIVERY_MEMORY_MS),
    });
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}
