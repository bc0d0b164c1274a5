import { PublishHold } from '../../../publishing/failure.js';
import type { InstagramHttp } from '../graph.js';

/** The rolling publishing quota of an account (contract 2.4): posts published in the window, of how many. */
export interface PublishingQuota {
  usage: number;
  total: number;
  windowSec: number;
}

/** How finely the moment the quota frees is searched for: 8 halvings of 24 h, about 6 minutes. */
const SEARCH_STEPS = 8;
/** Added to the moment found, so the retry comes after Instagram's window has moved past the oldest post. */
const MARGIN_MS = 60_000;

/** `GET /{ig-user-id}/content_publishing_limit?fields=config,quota_usage` (with `since`: publishes after it). */
export async function readQuota(
  http: InstagramHttp,
  token: string,
  userId: string,
  sinceSec?: number,
): Promise<PublishingQuota> {
  const params: Record<string, string> = { fields: 'config,quota_usage' };
  if (sinceSec !== undefined) params.since = String(sinceSec);
  const answer = await http.get<{
    data?: { quota_usage?: unknown; config?: { quota_total?: unknown; quota_duration?: unknown } }[];
  }>(`/${userId}/content_publishing_limit`, params, token);
  const row = answer.data?.[0];
  const number = (value: unknown, fallback: number) => (typeof value === 'number' && value >= 0 ? value : fallback);
  return {
    usage: number(row?.quota_usage, 0),
    // The references say 50; read live, as the contract asks, and assume 50 only when Instagram omits it.
    total: number(row?.config?.quota_total, 50),
    windowSec: number(row?.config?.quota_duration, 86_400),
  };
}

/** A hold when the account has no publish left in the rolling window; null while it has one. */
export async function quotaHold(
  http: InstagramHttp,
  token: string,
  userId: string,
  now: Date,
): Promise<PublishHold | null> {
  const quota = await readQuota(http, token, userId);
  if (quota.usage < quota.total) return null;
  return holdUntilQuotaFrees(http, token, userId, now, quota);
}

/**
 * The hold of a post Instagram will not publish now for the quota, until the oldest publish in the window leaves
 * it. Instagram does not say when that is; `since` counts the publishes after a moment, so the moment the usage
 * drops below the total is searched for by halving the window.
 */
export async function holdUntilQuotaFrees(
  http: InstagramHttp,
  token: string,
  userId: string,
  now: Date,
  known?: PublishingQuota,
): Promise<PublishHold> {
  const quota = known ?? (await readQuota(http, token, userId));
  const nowSec = Math.floor(now.getTime() / 1000);
  // `since` must lie within the window: start a minute inside it.
  let before = nowSec - quota.windowSec + 60;
  let after = nowSec;
  if (quota.total > 0 && (await readQuota(http, token, userId, before)).usage < quota.total) after = before;
  for (let step = 0; step < SEARCH_STEPS && after - before > 1; step += 1) {
    const middle = Math.floor((before + after) / 2);
    if ((await readQuota(http, token, userId, middle)).usage < quota.total) after = middle;
    else before = middle;
  }
  // The oldest counted publish happened before `after`: the window lets it go `windowSec` later.
  const retryAt = new Date((after + quota.windowSec) * 1000 + MARGIN_MS);
  const reason =
    `Instagram allows ${quota.total} posts through its API per account in 24 hours, ` +
    `and this account published ${quota.usage} in the last 24 hours`;
  return new PublishHold(reason, retryAt);
}
