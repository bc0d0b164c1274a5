import type { PlatformDoc } from './documents.js';

/** The scopes behind analytics: a post's numbers (`video.list`) and the account's (`user.info.stats`), contract 8. */
export const ANALYTICS_SCOPES: readonly string[] = Object.freeze(['video.list', 'user.info.stats']);

/** Whether Postdeck may read an account's numbers on TikTok, and when not, why and what fixes it. */
export interface AnalyticsAccess {
  granted: boolean;
  /** The analytics scopes the account's TikTok grant lacks. */
  missingScopes: string[];
  reason: string | null;
  fix: string | null;
}

/** What the account's granted scopes allow: analytics needs every scope of ANALYTICS_SCOPES. */
export function analyticsAccess(grantedScopes: readonly string[]): AnalyticsAccess {
  const missingScopes = ANALYTICS_SCOPES.filter((s) => !grantedScopes.includes(s));
  if (missingScopes.length === 0) return { granted: true, missingScopes, reason: null, fix: null };
  return {
    granted: false,
    missingScopes,
    // Either it was connected before Postdeck asked for them, or the person unticked them on TikTok.
    reason: `TikTok did not grant ${missingScopes.join(' and ')} to this connection, so Postdeck cannot read its posts' numbers.`,
    fix: 'Reconnect the account to grant analytics: connect it again on the TikTok accounts page and allow every permission.',
  };
}

/** The analytics access of a stored platform, from the scopes recorded when it was connected (`metadata.scopes`). */
export function platformAnalyticsAccess(doc: Pick<PlatformDoc, 'metadata'>): AnalyticsAccess {
  const scopes = doc.metadata.scopes;
  return analyticsAccess(Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : []);
}
