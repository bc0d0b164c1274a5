import type { CoreDeps } from '../context.js';
import { deleteLeases } from '../db/leases.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';
import { loginPollLeaseKey } from './login.js';
import { cardActionLeaseKey } from './recorded-actions.js';

/** Ended logins are kept a day for `/postdeck status` questions, then forgotten. */
const LOGIN_RETENTION_MS = 24 * 60 * 60_000;

/** Ended card clicks are kept a day: their `_id` still answers a late redelivery as seen. */
const CARD_ACTION_RETENTION_MS = 24 * 60 * 60_000;

/** Forgets remembered chat deliveries, old logins with their poll leases, and ended card clicks with theirs. */
export async function purgeChatRecords(deps: CoreDeps): Promise<void> {
  const now = deps.now();
  await deps.db.chatDeliveries.deleteMany({ expiresAt: { $lte: now } });
  const old = { expiresAt: { $lte: new Date(now.getTime() - LOGIN_RETENTION_MS) } };
  const ids = (await deps.db.chatLogins.find(old, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id);
  await deleteLeases(deps.db, ids.map(loginPollLeaseKey));
  await deps.db.chatLogins.deleteMany({ _id: { $in: ids } });
  const ended = { endedAt: { $ne: null, $lte: new Date(now.getTime() - CARD_ACTION_RETENTION_MS) } };
  const actions = (await deps.db.chatCardActions.find(ended, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
  await deleteLeases(deps.db, actions.map(cardActionLeaseKey));
  await deps.db.chatCardActions.deleteMany({ _id: { $in: actions } });
}

export const purgeChatRecordsJob = definePeriodicJob('chat.purge', purgeChatRecords);
