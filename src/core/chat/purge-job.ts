import type { CoreDeps } from '../context.js';
import { deleteLeases } from '../db/leases.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';
import { loginPollLeaseKey } from './login.js';

/** Ended logins are kept a day for `/postdeck status` questions, then forgotten. */
const LOGIN_RETENTION_MS = 24 * 60 * 60_000;

/** Forgets remembered chat deliveries, and old logins with their poll leases. */
export async function purgeChatRecords(deps: CoreDeps): Promise<void> {
  const now = deps.now();
  await deps.db.chatDeliveries.deleteMany({ expiresAt: { $lte: now } });
  const old = { expiresAt: { $lte: new Date(now.getTime() - LOGIN_RETENTION_MS) } };
  const ids = (await deps.db.chatLogins.find(old, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id);
  await deleteLeases(deps.db, ids.map(loginPollLeaseKey));
  await deps.db.chatLogins.deleteMany({ _id: { $in: ids } });
}

export const purgeChatRecordsJob = definePeriodicJob('chat.purge', purgeChatRecords);
