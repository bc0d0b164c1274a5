import type { CoreDeps } from '../../context.js';
import type { Provider } from '../port.js';
import { underTokenLease } from '../token-lease.js';
import { instagramAnalyticsAccess, INSIGHTS_SCOPE } from './connect/analytics-access.js';
import { completeInstagramConnection, startInstagramConnection } from './connect/connect.js';
import { disconnectInstagram } from './connect/disconnect.js';
import { localMediaWarning } from './connect/media-reach.js';
import type { InstagramHttp } from './graph.js';
import type { WithInstagramHttp } from './http-of.js';
import { INSTAGRAM_FRAMES } from './frames.js';
import { readInstagramAccountCounts, readInstagramPostCounts } from './insights/read-counts.js';
import { instagramPublishing } from './publish/index.js';
import { checkInstagramPost } from './rules/check-post.js';
import { INSTAGRAM_IMAGE_RENDERING } from './rules/image-rendering.js';
import { instagramPostingSchema } from './rules/posting-schema.js';

/** Instagram behind the provider port, over `http` (real Instagram or the emulator, by its base URLs). */
export function createInstagramProvider(http: InstagramHttp): Provider<CoreDeps> & WithInstagramHttp {
  return {
    id: 'instagram',
    name: 'Instagram',
    http,
    connect: {
      start: startInstagramConnection,
      complete: completeInstagramConnection,
      consentOrigin: new URL(http.config.authBaseUrl).origin,
      emulated: http.config.emulator === true,
      setupWarning: (deps) => localMediaWarning(deps.media.publicBaseUrl, http.config.emulator === true),
    },
    accounts: {
      analyticsAccess: instagramAnalyticsAccess,
      disconnect: disconnectInstagram,
      underLease: underTokenLease,
    },
    rules: {
      checkPost: checkInstagramPost,
      postingSchema: instagramPostingSchema,
      images: INSTAGRAM_IMAGE_RENDERING,
    },
    publishing: instagramPublishing(http),
    // Media insights take one media a call (GET /{media-id}/insights).
    insights: {
      postsScope: INSIGHTS_SCOPE,
      postsPerRead: 1,
      totalsScope: INSIGHTS_SCOPE,
      readPostCounts: readInstagramPostCounts,
      readAccountCounts: readInstagramAccountCounts,
    },
    frames: INSTAGRAM_FRAMES,
  };
}
