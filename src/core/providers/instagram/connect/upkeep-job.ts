import type { CoreDeps } from '../../../context.js';
import { definePeriodicJob } from '../../../jobs/periodic-job.js';
import { underTokenLease } from '../../token-lease.js';
import { GraphError, GraphTransportError } from '../graph-errors.js';
import { instagramHttpOf } from '../http-of.js';
import { refreshInstagramToken } from '../oauth.js';
import { authorizationEnded } from './token-access.js';
import { readInstagramToken, storeInstagramToken } from './tokens.js';

/** How often the upkeep runs. */
export const INSTAGRAM_UPKEEP_EVERY_MS = 60 * 60_000;
/** Instagram refuses to refresh a token younger than this (contract 1.4). */
export const MIN_REFRESH_AGE_MS = 24 * 3_600_000;
/** A token is refreshed once no more than this is left of it: half of its 60 days, so weeks of outage are survived. */
export const REFRESH_WHEN_LEFT_MS = 30 * 86_400_000;

/** Whether the upkeep renews a token now: at least 24 h old, and at most 30 days left before it expires. */
export function dueForInstagramUpkeep(token: { issuedAt: Date; expiresAt: Date }, now: Date): boolean {
  const age = now.getTime() - token.issuedAt.getTime();
  const left = token.expiresAt.getTime() - now.getTime();
  return age >= MIN_REFRESH_AGE_MS && left > 0 && left <= REFRESH_WHEN_LEFT_MS;
}

/** What one upkeep run did. */
export interface InstagramUpkeepReport {
  refreshed: number;
  needReconnect: number;
  failed: number;
}

/**
 * Renews the tokens of every connected Instagram account that is due, each under its token lease (a held lease
 * is skipped: someone works on that account now). A token Instagram calls dead (190) or that expired marks the
 * account for reconnecting; other failures are logged and tried again on the next run.
 */
export async function refreshInstagramTokens(deps: CoreDeps): Promise<InstagramUpkeepReport> {
  const report: InstagramUpkeepReport = { refreshed: 0, needReconnect: 0, failed: 0 };
  const now = deps.now();
  // Only dates are loaded: the sealed tokens are opened one account at a time, under its lease.
  const candidates = await deps.db.platformTokens
    .find({}, { projection: { _id: 1, provider: 1, accessTokenExpiresAt: 1, issuedAt: 1 } })
    .toArray();
  const due = candidates.filter(
    (c) =>
      c.provider === 'instagram' &&
      (c.accessTokenExpiresAt <= now ||
        dueForInstagramUpkeep({ issuedAt: c.issuedAt, expiresAt: c.accessTokenExpiresAt }, now)),
  );
  for (const candidate of due) {
    const platform = await deps.db.platforms.findOne({ _id: candidate._id });
    if (!platform || platform.disabled || platform.refreshNeeded) continue;
    try {
      const done = await underTokenLease(
        deps,
        platform._id,
        async () => {
          const token = await readInstagramToken(deps, platform._id);
          if (!token) return 'skipped';
          if (token.expiresAt <= deps.now()) {
            await authorizationEnded(deps, platform, 'expired before the upkeep could renew it');
            return 'ended';
          }
          if (!dueForInstagramUpkeep(token, deps.now())) return 'skipped';
          const fresh = await refreshInstagramToken(instagramHttpOf(deps), token, deps.now());
          await storeInstagramToken(deps, platform._id, fresh);
          await deps.db.platforms.updateOne(
            { _id: platform._id },
            { $set: { tokenExpiresAt: fresh.expiresAt, updatedAt: deps.now() } },
          );
          return 'refreshed';
        },
        0,
      );
      if (done?.value === 'refreshed') report.refreshed += 1;
      if (done?.value === 'ended') report.needReconnect += 1;
    } catch (error) {
      if (error instanceof GraphError && error.tokenDead) {
        await authorizationEnded(deps, platform, error.detail);
        report.needReconnect += 1;
        continue;
      }
      if (!(error instanceof GraphError || error instanceof GraphTransportError)) throw error;
      report.failed += 1;
      deps.logger.warn({ platformId: platform._id, why: error.message }, 'instagram token upkeep failed');
    }
  }
  return report;
}

/** The periodic renewal of Instagram's long-lived tokens. */
export const instagramTokenUpkeepJob = definePeriodicJob('instagram.token-upkeep', async (deps) => {
  const report = await refreshInstagramTokens(deps);
  if (report.refreshed + report.needReconnect + report.failed > 0) deps.logger.info(report, 'instagram token upkeep');
});
