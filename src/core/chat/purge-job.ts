import type { CoreDeps } from '../context.js';
import { definePeriodicJob } from '../jobs/periodic-job.js';

/** Ended logins are kept a day for `/postdeck status` questions, then forgotten. */
const LOGIN_RETENTION_MS = 24 * 60 * 60_000;

/** Forgets remembered chat deliveries and old logins. */
export async function purgeChatRecords(deps: CoreDeps): Promise<void> {
  const now = deps.now();
  await deps.db.chatDeliveries.deleteMany({ expiresAt: { $lte: now } });
  await deps.db.chatLogins.deleteMany({ expiresAt: { $lte: new Date(now.getTime() - LOGIN_RETENTION_MS) } });
}

export const purgeChatRecordsJob = definePeriodicJob('chat.purge', purgeChatRecords);
