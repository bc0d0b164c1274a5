import type { CoreDeps } from '../context.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';

/** How long a key keeps its binding and outcome: the 24 hours clients may retry in. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60_000;

const BATCH = 500;

/**
 * Deletes keys bound more than 24 hours ago with all their attempts and outcomes, plus any
 * attempt or outcome that old (left behind by a request racing an earlier purge; the binding id
 * in their `_id`s keeps such leftovers from ever being read). Returns how many keys went.
 */
export async function purgeExpiredIdempotencyKeys(deps: CoreDeps): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - IDEMPOTENCY_RETENTION_MS);
  let purged = 0;
  for (;;) {
    const keys = await deps.db.idempotency
      .find({ kind: 'key', createdAt: { $lt: cutoff } }, { projection: { _id: 1 }, limit: BATCH })
      .toArray();
    if (keys.length === 0) break;
    await deps.db.idempotency.deleteMany({ keyId: { $in: keys.map((doc) => doc._id) } });
    purged += keys.length;
    if (keys.length < BATCH) break;
  }
  await deps.db.idempotency.deleteMany({ createdAt: { $lt: cutoff } });
  return purged;
}

/** The periodic clean-up of Idempotency-Key records; the scheduler decides how often it runs. */
export const purgeExpiredIdempotencyKeysJob = definePeriodicJob('idempotency.purge-expired', async (deps) => {
  const purged = await purgeExpiredIdempotencyKeys(deps);
  if (purged > 0) deps.logger.info({ purged }, 'purged expired idempotency keys');
});
