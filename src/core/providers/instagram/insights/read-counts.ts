import { z } from 'zod';
import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import type { AccountCounts, CountsNotYet, PostCounts } from '../../port.js';
import { withInstagramToken } from '../connect/token-access.js';
import { instagramHttpOf } from '../http-of.js';
import { parse } from '../oauth.js';
import { collectionErrorOf, isMediaGone, isNotEnoughViewers } from './read-errors.js';

/**
 * The metrics Postdeck stores, asked of every media: feed images, carousel albums and Reels all support them
 * (contract 4), so no product type lookup comes first and no call fails for a metric of another type.
 */
const POST_METRICS = ['views', 'likes', 'comments', 'shares'] as const;

const InsightsSchema = z.object({
  data: z.array(
    z.object({ name: z.string(), values: z.array(z.object({ value: z.number().int().min(0) })).optional() }),
  ),
});

const UserCountsSchema = z.object({
  followers_count: z.number().int().min(0),
  follows_count: z.number().int().min(0),
  media_count: z.number().int().min(0),
});

/**
 * Each released media's lifetime insights, one call per media (`GET /{media-id}/insights`). An empty set, or
 * too few viewers yet, is "not yet" (numbers lag up to 48 h); a media Instagram no longer knows is left out.
 */
export async function readInstagramPostCounts(
  deps: CoreDeps,
  platform: PlatformDoc,
  releaseIds: string[],
  counted: () => void,
): Promise<Array<PostCounts | CountsNotYet>> {
  const answers: Array<PostCounts | CountsNotYet> = [];
  for (const releaseId of releaseIds) {
    const answer = await readOne(deps, platform, releaseId, counted);
    if (answer) answers.push(answer);
  }
  return answers;
}

async function readOne(
  deps: CoreDeps,
  platform: PlatformDoc,
  releaseId: string,
  counted: () => void,
): Promise<PostCounts | CountsNotYet | null> {
  const path = `/${releaseId}/insights`;
  try {
    const body = await askInstagram(deps, platform, counted, (token) =>
      instagramHttpOf(deps).get<unknown>(path, { metric: POST_METRICS.join(',') }, token),
    );
    return countsOf(releaseId, parse(InsightsSchema, body, path));
  } catch (error) {
    if (isNotEnoughViewers(error)) return { releaseId, notYet: true };
    if (isMediaGone(error)) return null;
    throw collectionErrorOf(error);
  }
}

/** The metrics of one answer; an empty set (or one without every metric) is Instagram's "not yet", never zero. */
function countsOf(releaseId: string, answer: z.infer<typeof InsightsSchema>): PostCounts | CountsNotYet {
  const values = new Map(answer.data.map((row) => [row.name, row.values?.[0]?.value] as const));
  const [views, likes, comments, shares] = POST_METRICS.map((metric) => values.get(metric));
  if (views === undefined || likes === undefined || comments === undefined || shares === undefined) {
    return { releaseId, notYet: true };
  }
  return { releaseId, views, likes, comments, shares };
}

/** The account's totals from its user node (`GET /me?fields=followers_count,follows_count,media_count`). */
export async function readInstagramAccountCounts(
  deps: CoreDeps,
  platform: PlatformDoc,
  counted: () => void,
): Promise<AccountCounts> {
  try {
    const body = await askInstagram(deps, platform, counted, (token) =>
      instagramHttpOf(deps).get<unknown>('/me', { fields: 'followers_count,follows_count,media_count' }, token),
    );
    const user = parse(UserCountsSchema, body, '/me');
    // Instagram has no account-wide likes total: null, not a made-up zero.
    return { followers: user.followers_count, following: user.follows_count, likes: null, videos: user.media_count };
  } catch (error) {
    throw collectionErrorOf(error);
  }
}

/** One Graph read with the account's working token, counted as a network call. */
function askInstagram<T>(
  deps: CoreDeps,
  platform: PlatformDoc,
  counted: () => void,
  call: (accessToken: string) => Promise<T>,
): Promise<T> {
  return withInstagramToken(deps, platform, (token) => {
    counted();
    return call(token);
  });
}
