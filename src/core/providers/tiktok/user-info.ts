import { z } from 'zod';
import { TikTokApiError } from './errors.js';
import type { TikTokHttp } from './http.js';
import { TIKTOK_RATE_LIMITS } from './rate-limiter.js';

/** The profile fields Postdeck reads; `username` needs `user.info.profile` (contract 1.4). */
export const USER_INFO_FIELDS = ['open_id', 'union_id', 'avatar_url', 'display_name', 'username'] as const;

const UserSchema = z.object({
  user: z.object({
    open_id: z.string(),
    union_id: z.string().optional(),
    avatar_url: z.string().optional(),
    display_name: z.string().optional(),
    username: z.string().optional(),
  }),
});

/** The connected user's identity and profile. */
export interface TikTokUserInfo {
  openId: string;
  unionId: string | undefined;
  displayName: string | undefined;
  username: string | undefined;
  avatarUrl: string | undefined;
}

/** Reads `GET /v2/user/info/` with the given fields (a read, so retried on 429/5xx). */
export async function getUserInfo(
  http: TikTokHttp,
  accessToken: string,
  fields: readonly string[] = USER_INFO_FIELDS,
): Promise<TikTokUserInfo> {
  const { data } = await http.api({
    method: 'GET',
    path: '/v2/user/info/',
    accessToken,
    query: { fields: fields.join(',') },
    schema: UserSchema,
    safe: true,
    limit: TIKTOK_RATE_LIMITS.userInfo,
  });
  const user = data.user;
  return {
    openId: user.open_id,
    unionId: user.union_id,
    displayName: user.display_name,
    username: user.username,
    avatarUrl: user.avatar_url,
  };
}

const StatsSchema = z.object({
  user: z.object({
    follower_count: z.coerce.number().int().nonnegative(),
    following_count: z.coerce.number().int().nonnegative(),
    likes_count: z.coerce.number().int().nonnegative(),
    video_count: z.coerce.number().int().nonnegative(),
  }),
});

/** The account's public counters (`user.info.stats`, contract 8.2). */
export interface TikTokUserStats {
  followerCount: number;
  followingCount: number;
  likesCount: number;
  videoCount: number;
}

/**
 * Reads the account's counters from `GET /v2/user/info/` (a read, so retried on 429/5xx). TikTok's docs name two
 * codes for a field whose scope was not granted (contract 8.2); both are thrown as `scope_not_authorized`, so a
 * caller has one code meaning "reconnect to grant analytics".
 */
export async function getUserStats(http: TikTokHttp, accessToken: string): Promise<TikTokUserStats> {
  try {
    const { data } = await http.api({
      method: 'GET',
      path: '/v2/user/info/',
      accessToken,
      query: { fields: 'follower_count,following_count,likes_count,video_count' },
      schema: StatsSchema,
      safe: true,
      limit: TIKTOK_RATE_LIMITS.userInfo,
    });
    const user = data.user;
    return {
      followerCount: user.follower_count,
      followingCount: user.following_count,
      likesCount: user.likes_count,
      videoCount: user.video_count,
    };
  } catch (error) {
    if (!(error instanceof TikTokApiError && error.tiktokCode === 'scope_permission_missed')) throw error;
    const message = `user.info.stats was not granted (TikTok answered scope_permission_missed: ${error.tiktokMessage})`;
    throw new TikTokApiError('scope_not_authorized', message, error.httpStatus, 'api', error.logId);
  }
}
