import { ANALYTICS_SCOPES } from '../config.js';
import type { PlatformDoc } from '../../../platforms/documents.js';

/** Whether Postdeck may read an account's numbers on TikTok, and when not, why and what fixes it. */
export interface AnalyticsAccess {
  granted: boolean;
  /** The analytics scopes the account's TikTok grant lacks. */
  missingScopes: string[];
  reason: string | null;
  fix: string | null;
}

/**
 * What the account's granted scopes allow: analytics needs every scope of ANALYTICS_SCOPES. `requested`
 * false: the server did not ask for them when the account was connected (TIKTOK_ANALYTICS=false).
 */
export function analyticsAccess(grantedScopes: readonly string[], requested = true): AnalyticsAccess {
  const missingScopes = ANALYTICS_SCOPES.filter((s) => !grantedScopes.includes(s));
  if (missingScopes.length === 0) return { granted: true, missingScopes, reason: null, fix: null };
  if (!requested) {
    return {
      granted: false,
      missingScopes,
      reason: 'Analytics was turned off on this server (TIKTOK_ANALYTICS=false) when the account was connected.',
      fix: "An administrator adds TikTok's Display API product to the app and sets TIKTOK_ANALYTICS=true; then reconnect the account.",
    };
  }
  return {
    granted: false,
    missingScopes,
    // Either it was connected before Postdeck asked for them, or the person unticked them on TikTok.
    reason: `TikTok did not grant ${missingScopes.join(' and ')} to this connection, so Postdeck cannot read its posts' numbers.`,
    fix: 'Reconnect the account to grant analytics: connect it again on the TikTok accounts page and allow every permission.',
  };
}

/**
 * The analytics access of a stored platform, from the scopes recorded when it was connected (`metadata.scopes`)
 * and whether they were asked for (`metadata.analyticsRequested`, false only when the server had analytics off).
 */
export function platformAnalyticsAccess(doc: Pick<PlatformDoc, 'metadata'>): AnalyticsAccess {
  const { scopes, analyticsRequested } = doc.metadata;
  const granted = Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [];
  return analyticsAccess(granted, analyticsRequested !== false);
}

/** True when the platform was connected while the server had analytics turned off (a reconnect alone cannot help). */
export function analyticsTurnedOff(doc: Pick<PlatformDoc, 'metadata'>): boolean {
  return doc.metadata.analyticsRequested === false;
}
