import type { Provider } from '../port.js';
import { platformAnalyticsAccess } from './connect/analytics-access.js';
import { completeTikTokConnection, startTikTokConnection } from './connect/connect.js';
import { disconnectTikTok } from './connect/disconnect.js';
import { underTokenLease } from './connect/token-access.js';
import type { WithTikTokHttp } from './http-of.js';
import type { TikTokHttp } from './http.js';
import { readTikTokAccountCounts, readTikTokPostCounts } from './insights/read-counts.js';
import { initTikTokPublish } from './publish/init.js';
import { readTikTokPublishState } from './publish/read-status.js';
import { postPagesBaseUrl, releaseLinkLabel, releaseUrlOf } from './publish/release-url.js';
import { checkTikTokPost } from './rules/check-post.js';
import { TIKTOK_FRAMES } from './frames.js';
import { tiktokPostKind } from './rules/post-rules.js';
import { tiktokPostingSchemaFor } from './rules/schema-for.js';
import { MAX_VIDEO_IDS_PER_QUERY } from './video-query.js';
import type { CoreDeps } from '../../context.js';

/** TikTok behind the provider port, over `http` (real TikTok or the emulator, by its base URLs). */
export function createTikTokProvider(http: TikTokHttp): Provider<CoreDeps> & WithTikTokHttp {
  return {
    id: 'tiktok',
    name: 'TikTok',
    http,
    connect: {
      start: startTikTokConnection,
      complete: completeTikTokConnection,
      consentOrigin: new URL(http.config.authBaseUrl).origin,
      emulated: http.config.emulator === true,
      // TikTok pulls media only from verified URL prefixes, which the media settings already decide.
      setupWarning: () => null,
    },
    accounts: {
      analyticsAccess: platformAnalyticsAccess,
      disconnect: disconnectTikTok,
      underLease: underTokenLease,
    },
    rules: {
      checkPost: checkTikTokPost,
      postingSchema: tiktokPostingSchemaFor,
    },
    publishing: {
      postKind: tiktokPostKind,
      threadReplies: false,
      init: initTikTokPublish,
      advance: readTikTokPublishState,
      idShownLater: true,
      releaseUrl: (handle, kind, releaseId) =>
        releaseUrlOf(postPagesBaseUrl(http.config), handle, kind === 'video' ? 'video' : 'photo', releaseId),
      releaseLinkLabel: () => releaseLinkLabel(http.config.emulator === true),
    },
    insights: {
      postsScope: 'video.list',
      postsPerRead: MAX_VIDEO_IDS_PER_QUERY,
      totalsScope: 'user.info.stats',
      readPostCounts: readTikTokPostCounts,
      readAccountCounts: readTikTokAccountCounts,
    },
    frames: TIKTOK_FRAMES,
  };
}
