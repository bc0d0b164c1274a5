import { z } from 'zod';
import { CANNOT_POST_CODES } from './errors.js';
import { validateResponse, type TikTokHttp } from './http.js';
import { TIKTOK_RATE_LIMITS, type TikTokCaller } from './rate-limiter.js';

const CreatorSchema = z.object({
  creator_avatar_url: z.string(),
  creator_username: z.string(),
  creator_nickname: z.string(),
  privacy_level_options: z.array(z.string()),
  comment_disabled: z.boolean(),
  duet_disabled: z.boolean(),
  stitch_disabled: z.boolean(),
  max_video_post_duration_sec: z.coerce.number().int().positive(),
});

/** What the creator may do right now (contract 4.1); these values must drive the posting UI. */
export interface TikTokCreatorInfo {
  avatarUrl: string;
  username: string;
  nickname: string;
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
}

/**
 * The creator-info answer. `cannotPost` is set when TikTok answered HTTP 200 with one of its "cannot
 * post now" codes; `info` is null then unless TikTok sent the data anyway (the docs do not say).
 */
export interface TikTokCreatorInfoResult {
  info: TikTokCreatorInfo | null;
  cannotPost: { code: string; message: string } | null;
}

/** Queries `POST /v2/post/publish/creator_info/query/` (needs `video.publish`; a read, so retried). */
export async function queryCreatorInfo(
  http: TikTokHttp,
  accessToken: string,
  caller: TikTokCaller = 'background',
): Promise<TikTokCreatorInfoResult> {
  const answer = await http.api({
    method: 'POST',
    path: '/v2/post/publish/creator_info/query/',
    accessToken,
    schema: z.unknown(),
    safe: true,
    limit: TIKTOK_RATE_LIMITS.creatorInfo,
    acceptCodes: CANNOT_POST_CODES,
    caller,
  });
  const cannotPost = answer.code === 'ok' ? null : { code: answer.code, message: answer.message };
  // Only a "cannot post" answer may lack the data; an ok answer must have all of it.
  if (cannotPost && !CreatorSchema.safeParse(answer.data).success) return { info: null, cannotPost };
  const d = validateResponse(CreatorSchema, answer.data, 'creator_info');
  return {
    info: {
      avatarUrl: d.creator_avatar_url,
      username: d.creator_username,
      nickname: d.creator_nickname,
      privacyLevelOptions: d.privacy_level_options,
      commentDisabled: d.comment_disabled,
      duetDisabled: d.duet_disabled,
      stitchDisabled: d.stitch_disabled,
      maxVideoPostDurationSec: d.max_video_post_duration_sec,
    },
    cannotPost,
  };
}
