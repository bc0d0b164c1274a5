import { z } from 'zod';
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
