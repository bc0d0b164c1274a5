import type { Collection, Filter } from 'mongodb';
import type { Collections } from './collections.js';

/**
 * Deletes single-use records (found by `_id`, taken through a lease keyed `leaseKeyOf(_id)`) whose
 * `expiresAt` has passed, with their leases; returns how many records went.
 */
export async function purgeExpiredWithLeases<T extends { _id: string; expiresAt: Date }>(
  db: Pick<Collections, 'leases'>,
  records: Collection<T>,
  leaseKeyOf: (id: string) => string,
  now: Date,
): Promise<number> {
  const expired = { expiresAt: { $lte: now } } as Filter<T>;
  const ids = (await records.find(expired, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id as string);
  if (ids.length === 0) return 0;
  await db.leases.deleteMany({ key: { $in: ids.map(leaseKeyOf) } });
  return (await records.deleteMany({ _id: { $in: ids } } as Filter<T>)).deletedCount;
}
