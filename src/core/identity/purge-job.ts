import type { CoreDeps } from '../context.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';
import { invitationLeaseKey } from './invitations.js';

/** Rate-limit windows are at most 15 minutes; a day later their ledger slots are history. */
const RATE_LIMIT_RETENTION_MS = 86_400_000;

/**
 * Deletes expired sessions, invitations that expired unused (with their single-use leases)
 * and rate-limit slots of long-past windows. Returns how many documents went.
 */
export async function purgeExpiredIdentityRecords(deps: CoreDeps): Promise<number> {
  const now = deps.now();
  const sessions = await deps.db.sessions.deleteMany({ expiresAt: { $lte: now } });
  await deps.db.secretLookups.deleteMany({ expiresAt: { $lte: now } });
  const stale = await deps.db.invitations
    .find({ expiresAt: { $lte: now }, acceptedAt: null }, { projection: { _id: 1 } })
    .toArray();
  const ids = stale.map((doc) => doc._id);
  if (ids.length > 0) {
    await deps.db.leases.deleteMany({ key: { $in: ids.map(invitationLeaseKey) } });
    await deps.db.invitations.deleteMany({ _id: { $in: ids } });
  }
  const slots = await deps.db.ledger.deleteMany({
    pool: { $regex: '^ratelimit:' },
    createdAt: { $lt: new Date(now.getTime() - RATE_LIMIT_RETENTION_MS) },
  });
  return sessions.deletedCount + ids.length + slots.deletedCount;
}

/** The periodic clean-up of sign-in records; the scheduler decides how often it runs. */
export const purgeExpiredIdentityRecordsJob = definePeriodicJob('identity.purge-expired', async (deps) => {
  const purged = await purgeExpiredIdentityRecords(deps);
  if (purged > 0) deps.logger.info({ purged }, 'purged expired sessions, invitations and rate-limit slots');
});
