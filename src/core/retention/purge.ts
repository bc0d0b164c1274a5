import type { Filter } from 'mongodb';
import type { CoreDeps } from '../context.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';

const DAY_MS = 24 * 3_600_000;
/** Documents deleted per round trip: small enough that no delete holds the database for long. */
const BATCH = 500;

/** How many records one purge removed. */
export interface PurgeResult {
  webhookDeliveries: number;
  auditEntries: number;
}

/**
 * Deletes what is older than its retention: webhook deliveries that are settled (delivered or given up)
 * and whose last window started before the cutoff (a pending one is never cut short), and audit entries
 * of changes before theirs. In batches by `_id`, so a large backlog (the first run on an old install)
 * never becomes one long delete. A retention of 0 days keeps everything.
 */
export async function purgeExpiredRecords(deps: CoreDeps, batch = BATCH): Promise<PurgeResult> {
  const now = deps.now().getTime();
  const { webhookDeliveryDays, auditDays } = deps.retention;
  const webhookDeliveries =
    webhookDeliveryDays > 0
      ? await deleteInBatches(
          deps.db.webhookDeliveries,
          {
            state: { $in: ['delivered', 'failed'] },
            windowStart: { $lt: new Date(now - webhookDeliveryDays * DAY_MS) },
          },
          batch,
        )
      : 0;
  const auditEntries =
    auditDays > 0
      ? await deleteInBatches(deps.db.audit, { at: { $lt: new Date(now - auditDays * DAY_MS) } }, batch)
      : 0;
  return { webhookDeliveries, auditEntries };
}

interface Purgeable<T> {
  find(
    filter: Filter<T>,
    options: { projection: { _id: 1 }; limit: number },
  ): { toArray(): Promise<{ _id: string }[]> };
  deleteMany(filter: Filter<T>): Promise<{ deletedCount: number }>;
}

async function deleteInBatches<T extends { _id: string }>(
  collection: Purgeable<T>,
  filter: Filter<T>,
  batch: number,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const ids = (await collection.find(filter, { projection: { _id: 1 }, limit: batch }).toArray()).map(
      (doc) => doc._id,
    );
    if (ids.length === 0) return deleted;
    // The filter again, so a delivery redelivered since it was read stays.
    deleted += (await collection.deleteMany({ $and: [{ _id: { $in: ids } }, filter] } as Filter<T>)).deletedCount;
    if (ids.length < batch) return deleted;
  }
}

/** The hourly purge (a day's retention needs no finer grain), run by a worker's housekeeping job. */
export const purgeExpiredRecordsJob = definePeriodicJob('retention.purge', async (deps) => {
  const purged = await purgeExpiredRecords(deps);
  if (purged.webhookDeliveries + purged.auditEntries > 0)
    deps.logger.info(purged, 'purged records past their retention');
});
