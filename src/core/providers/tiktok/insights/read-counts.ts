import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { ScopeNotGranted, type AccountCounts, type PostCounts } from '../../port.js';
import { withTikTokToken } from '../connect/token-access.js';
import { TikTokApiError } from '../errors.js';
import { tiktokHttpOf } from '../http-of.js';
import { getUserStats } from '../user-info.js';
import { queryVideoStats } from '../video-query.js';

/** The numbers of up to 20 released posts (`video.list`); posts TikTok does not return are left out. */
export async function readTikTokPostCounts(
  deps: CoreDeps,
  platform: PlatformDoc,
  releaseIds: string[],
  counted: () => void,
): Promise<PostCounts[]> {
  const videos = await askTikTok(deps, platform, 'video.list', counted, (token) =>
    queryVideoStats(tiktokHttpOf(deps), token, releaseIds),
  );
  return videos.map((video) => ({
    releaseId: video.id,
    views: video.viewCount,
    likes: video.likeCount,
    comments: video.commentCount,
    shares: video.shareCount,
  }));
}

/** The account's totals (`user.info.stats`). */
export async function readTikTokAccountCounts(
  deps: CoreDeps,
  platform: PlatformDoc,
  counted: () => void,
): Promise<AccountCounts> {
  const stats = await askTikTok(deps, platform, 'user.info.stats', counted, (token) =>
    getUserStats(tiktokHttpOf(deps), token),
  );
  return {
    followers: stats.followerCount,
    following: stats.followingCount,
    likes: stats.likesCount,
    videos: stats.videoCount,
  };
}

/** One TikTok call needing `scope`, with the account's token; a refused scope becomes ScopeNotGranted. */
async function askTikTok<T>(
  deps: CoreDeps,
  platform: PlatformDoc,
  scope: string,
  counted: () => void,
  call: (accessToken: string) => Promise<T>,
): Promise<T> {
  try {
    return await withTikTokToken(deps, platform, (token) => {
      counted();
      return call(token);
    });
  } catch (error) {
    if (error instanceof TikTokApiError && error.tiktokCode === 'scope_not_authorized') {
      throw new ScopeNotGranted(scope, 'TikTok');
    }
    throw error;
  }
}
