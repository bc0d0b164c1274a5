import { z } from 'zod';
import { refusedByClient } from './errors.js';
import type { TikTokHttp } from './http.js';
import { TIKTOK_RATE_LIMITS } from './rate-limiter.js';

/** The most ids TikTok's video query takes in one call (contract 8.1). */
export const MAX_VIDEO_IDS_PER_QUERY = 20;

/** The Video Object fields Postdeck asks for (contract 8.1). */
const FIELDS = ['id', 'create_time', 'view_count', 'like_count', 'comment_count', 'share_count'];

const count = z.coerce.number().int().nonnegative();
const QuerySchema = z.object({
  // Ids are strings in the docs; a bare number (parsed to a digit string when long) is taken too.
  videos: z
    .array(
      z.object({
        id: z.union([z.string(), z.number()]).transform(String),
        create_time: z.coerce.number().int(),
        view_count: count,
        like_count: count,
        comment_count: count,
        share_count: count,
      }),
    )
    .default([]),
});

/** One of the creator's own posts as POST /v2/video/query/ answers it (fields Postdeck asks for). */
export interface TikTokVideoStats {
  /** TikTok's post id: what a PUBLISHED post stores in PostDoc.releaseId. */
  id: string;
  /** Unix seconds. */
  createTime: number;
  viewCount: number;
  likeCount: number;
  commentCount: number;
  shareCount: number;
}

/**
 * The numbers of up to 20 of the creator's own posts (`video.list`; a read, so retried on 429 and 5xx). Ids
 * TikTok does not return (another creator's, private, removed) are absent from the answer, not an error. More
 * than 20 ids is refused before any request; none asks nothing. Throws TikTokApiError, `scope_not_authorized`
 * when the token lacks `video.list` and `rate_limit_exceeded` on a 429 that outlasted the retries.
 */
export async function queryVideoStats(
  http: TikTokHttp,
  accessToken: string,
  videoIds: readonly string[],
): Promise<TikTokVideoStats[]> {
  const ids = [...new Set(videoIds)];
  if (ids.length > MAX_VIDEO_IDS_PER_QUERY) {
    throw refusedByClient(
      `TikTok answers at most ${MAX_VIDEO_IDS_PER_QUERY} video ids a call; ${ids.length} were given`,
    );
  }
  if (ids.length === 0) return [];
  const { data } = await http.api({
    method: 'POST',
    path: '/v2/video/query/',
    accessToken,
    query: { fields: FIELDS.join(',') },
    body: { filters: { video_ids: ids } },
    schema: QuerySchema,
    safe: true,
    limit: TIKTOK_RATE_LIMITS.videoQuery,
  });
  const asked = new Set(ids);
  return data.videos
    .filter((v) => asked.has(v.id))
    .map((v) => ({
      id: v.id,
      createTime: v.create_time,
      viewCount: v.view_count,
      likeCount: v.like_count,
      commentCount: v.comment_count,
      shareCount: v.share_count,
    }));
}
