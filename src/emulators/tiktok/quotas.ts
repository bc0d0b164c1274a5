import type { EmulatorOptions } from './options.js';
import type { Publish } from './publish-model.js';
import type { CANNOT_POST_CODES, EmulatorState } from './state.js';

const DAY_MS = 86_400_000;

/** The most users an unaudited app may have posting in 24 h (contract 3). */
export const UNAUDITED_USER_CAP = 5;

function recent(state: EmulatorState, test: (p: Publish) => boolean): Publish[] {
  const since = Date.now() - DAY_MS;
  return [...state.publishes.values()].filter((p) => p.createdAt > since && test(p));
}

/**
 * Why this user cannot start a Direct Post now, or null: banned, the shared daily cap (failed posts do not count;
 * posts through other apps do), or the app's active-user cap. creator_info reports the same codes with HTTP 200.
 */
export function postingBlock(
  state: EmulatorState,
  options: EmulatorOptions,
  openId: string,
): (typeof CANNOT_POST_CODES)[number] | null {
  const account = state.accounts.get(openId);
  if (account?.banned) return 'spam_risk_user_banned_from_posting';
  const today = recent(state, (p) => p.openId === openId && p.mode === 'DIRECT_POST' && p.status !== 'FAILED');
  if (today.length + (account?.otherClientPostsToday ?? 0) >= options.dailyPostCap) return 'spam_risk_too_many_posts';
  if (activeUserCapReached(state, options, openId)) return 'reached_active_user_cap';
  return null;
}

/** True when this user would be one posting user too many for the app today (any Direct Post counts as active). */
export function activeUserCapReached(state: EmulatorState, options: EmulatorOptions, openId: string): boolean {
  const cap = options.audited ? options.activeUserCap : Math.min(UNAUDITED_USER_CAP, options.activeUserCap ?? Infinity);
  if (cap === null) return false;
  const users = new Set(recent(state, (p) => p.mode === 'DIRECT_POST').map((p) => p.openId));
  return !users.has(openId) && users.size >= cap;
}

/** Inbox shares of this user from the last 24 h still waiting for the user (not posted, not failed). */
export function pendingShares(state: EmulatorState, openId: string): number {
  return recent(
    state,
    (p) => p.openId === openId && p.mode === 'MEDIA_UPLOAD' && p.status !== 'PUBLISH_COMPLETE' && p.status !== 'FAILED',
  ).length;
}

/** A public account: one whose privacy options include PUBLIC_TO_EVERYONE (contract 4.1). */
export function isPublicAccount(privacyLevelOptions: string[]): boolean {
  return privacyLevelOptions.includes('PUBLIC_TO_EVERYONE');
}
