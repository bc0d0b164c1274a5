import { Router } from '@koa/router';
import type { AppState } from '../shared/context.js';
import { registerAnalyticsPages } from './analytics-page.js';
import { registerAuthPages } from './auth-pages.js';
import { registerDevicePages } from './device-page.js';
import { registerInvitePages } from './invite-pages.js';
import { registerKeysPages } from './keys-page.js';
import { registerMembersPages } from './members-page.js';
import { registerOAuthPages } from './oauth-page.js';
import type { WebOptions } from './options.js';
import { registerPlatformsPages } from './platforms-page.js';
import { registerPostsPages } from './posts-page.js';
import { securityHeaders } from './security-headers.js';
import { webErrors } from './web-errors.js';
import { registerSettingsPages } from './settings-page.js';
import { registerUsagePages } from './usage-page.js';
import { registerWebhooksPages } from './webhooks-page.js';
import { registerAuditPages } from './audit-page.js';
import { registerAssets } from './styles.js';
import { registerCopyScript } from './copy-script.js';

export type { WebOptions } from './options.js';

/**
 * The server-rendered web app: sign-in and sign-up, the device verification page, the posts
 * calendar, analytics, TikTok accounts, API keys, webhooks, AI settings, usage, members and the audit trail. One
 * small script (Copy buttons) and no front-end build; every page gets the strict CSP and HTML errors, and every form a CSRF check. Router
 * middleware only runs for these routes.
 */
export function createWebRouter(options: WebOptions): Router<AppState> {
  const router = new Router<AppState>();
  router.use(securityHeaders());
  router.use(webErrors(options.logger));
  registerAssets(router);
  registerCopyScript(router);
  registerAuthPages(router, options);
  registerInvitePages(router, options);
  registerDevicePages(router, options);
  registerOAuthPages(router, options);
  registerPostsPages(router, options);
  registerAnalyticsPages(router, options);
  registerPlatformsPages(router, options);
  registerKeysPages(router, options);
  registerWebhooksPages(router, options);
  registerSettingsPages(router, options);
  registerUsagePages(router, options);
  registerAuditPages(router, options);
  registerMembersPages(router, options);
  return router;
}
