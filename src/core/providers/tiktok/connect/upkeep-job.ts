import type { CoreDeps } from '../../../context.js';
import { AppError } from '../../../errors.js';
import { definePeriodicJob } from '../../../jobs/periodic-job.js';
import { TikTokApiError } from '../errors.js';
import { refreshHeld, underTokenLease } from './token-access.js';
import { readTokens } from './tokens.js';

/** How often the upkeep runs. */
export const TOKEN_UPKEEP_EVERY_MS = 10 * 60_000;

/**
 * Whether the upkeep refreshes a token now: when less than a quarter of its own lifetime is left
 * (30 min of TikTok's 2 h tokens, 6 h of the older 24 h ones), and in any case when it would
 * otherwise expire before the run after next, so one missed run never lets a token lapse.
 */
export function dueForUpkeep(
  token: { accessTokenExpiresAt: Date; issuedAt: Date },
  now: Date,
  everyMs = TOKEN_UPKEEP_EVERY_MS,
): boolean {
  const lifetime = token.accessTokenExpiresAt.getTime() - token.issuedAt.getTime();
  const margin = Math.max(lifetime / 4, 2 * everyMs);
  return token.accessTokenExpiresAt.getTime() - now.getTime() <= margin;
}

/** What one upkeep run did. */
export interface UpkeepReport {
  refreshed: number;
  needReconnect: number;
  failed: number;
}

/**
 * Refreshes the tokens of every connected TikTok account that is due. A platform whose lease is
 * held is skipped (someone is refreshing it now); `invalid_grant` marks it refreshNeeded (inside
 * refreshHeld); transient failures are logged and retried on the next run.
 */
export async function refreshExpiringTokens(deps: CoreDeps, everyMs = TOKEN_UPKEEP_EVERY_MS): Promise<UpkeepReport> {
  const report: UpkeepReport = { refreshed: 0, needReconnect: 0, failed: 0 };
  const now = deps.now();
  // Only dates are loaded: the sealed tokens are opened one platform at a time, under its lease.
  const candidates = await deps.db.platformTokens
    .find({}, { projection: { _id: 1, provider: 1, accessTokenExpiresAt: 1, issuedAt: 1 } })
    .toArray();
  // Other networks' tokens have their own upkeep.
  const due = candidates.filter((c) => c.provider === 'tiktok' && dueForUpkeep(c, now, everyMs));
  for (const candidate of due) {
    const platform = await deps.db.platforms.findOne({ _id: candidate._id });
    if (!platform || platform.disabled || platform.refreshNeeded) continue;
    try {
      const done = await underTokenLease(
        deps,
        platform._id,
        async () => {
          const tokens = await readTokens(deps, platform._id);
          if (!tokens || !dueForUpkeep(tokens, deps.now(), everyMs)) return false;
          await refreshHeld(deps, platform, tokens);
          return true;
        },
        0,
      );
      if (done?.value) report.refreshed += 1;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'conflict') {
        report.needReconnect += 1;
        continue;
      }
      report.failed += 1;
      const tiktokCode = error instanceof TikTokApiError ? error.tiktokCode : undefined;
      deps.logger.warn({ platformId: platform._id, code: error.code, tiktokCode }, 'tiktok token upkeep failed');
    }
  }
  return report;
}

/** The periodic refresh of TikTok tokens that expire soon. */
export const tiktokTokenUpkeepJob = definePeriodicJob('tiktok.token-upkeep', async (deps) => {
  const report = await refreshExpiringTokens(deps);
  if (report.refreshed + report.needReconnect + report.failed > 0) deps.logger.info(report, 'tiktok token upkeep');
});
