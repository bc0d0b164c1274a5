import type { PlatformDoc } from '../../../platforms/documents.js';
import type { AnalyticsAccess } from '../../port.js';

/** The scope Instagram's media and account insights need (contract 4). */
export const INSIGHTS_SCOPE = 'instagram_business_manage_insights';

/** What the account's grant allows insights to read, from the scopes recorded when it was connected. */
export function instagramAnalyticsAccess(doc: Pick<PlatformDoc, 'metadata'>): AnalyticsAccess {
  const scopes = Array.isArray(doc.metadata.scopes) ? doc.metadata.scopes : [];
  if (scopes.includes(INSIGHTS_SCOPE)) return { granted: true, missingScopes: [], reason: null, fix: null };
  return {
    granted: false,
    missingScopes: [INSIGHTS_SCOPE],
    reason: `Instagram did not grant ${INSIGHTS_SCOPE} to this connection, so Postdeck cannot read its numbers.`,
    fix: 'Connect the account again on the accounts page and allow every permission.',
  };
}
