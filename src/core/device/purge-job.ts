import type { CoreDeps } from '../context.js';
import { deleteLeases } from '../db/leases.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';
import { nearMissPool } from './guess-guard.js';
import { pollLeaseKey, redeemLeaseKey } from './poll.js';

/** Expired codes are kept this long, so a late poll still gets `expired_token` from its own record. */
export const DEVICE_CODE_RETENTION_MS = 60 * 60_000;
const BATCH = 500;

/**
 * Deletes device authorizations that expired more than an hour ago, with their user-code
 * reservations, decisions, redeem and poll leases and near-miss counters. Returns how many went.
 * Deleting the lease is safe: a gone (or expired) code answers `expired_token` before any
 * lease is looked at.
 */
export async function purgeExpiredDeviceCodes(deps: CoreDeps): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - DEVICE_CODE_RETENTION_MS);
  await deps.db.deviceUserCodes.deleteMany({ expiresAt: { $lt: cutoff } });
  let purged = 0;
  for (;;) {
    const ids = (
      await deps.db.deviceCodes
        .find({ expiresAt: { $lt: cutoff } }, { projection: { _id: 1 } })
        .limit(BATCH)
        .toArray()
    ).map((doc) => doc._id);
    if (ids.length === 0) return purged;
    await deleteLeases(deps.db, [...ids.map(redeemLeaseKey), ...ids.map(pollLeaseKey)]);
    await deps.db.ledger.deleteMany({ pool: { $in: ids.map(nearMissPool) } });
    await deps.db.deviceDecisions.deleteMany({ _id: { $in: ids } });
    purged += (await deps.db.deviceCodes.deleteMany({ _id: { $in: ids } })).deletedCount;
  }
}

/** The periodic clean-up of expired device codes; the scheduler decides how often it runs. */
export const purgeExpiredDeviceCodesJob = definePeriodicJob('device.purge-expired', async (deps) => {
  const purged = await purgeExpiredDeviceCodes(deps);
  if (purged > 0) deps.logger.info({ purged }, 'purged expired device codes');
});
