import type Router from '@koa/router';
import type { Context } from 'koa';
import { graphCall, requireScope, type GraphCall } from './graph-auth.js';
import { graphError } from './graph-error.js';
import { unsupportedGet } from './nodes.js';
import type { InstagramState, Media } from './state.js';

const INSIGHTS_SCOPE = 'instagram_business_manage_insights';
const COMMON = ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions'];
/** The metric sets per media product type (contract 4). */
export const MEDIA_METRICS = {
  IMAGE: [...COMMON, 'profile_visits', 'follows', 'profile_activity', 'reposts'],
  CAROUSEL_ALBUM: COMMON,
  REELS: [
    ...COMMON,
    'ig_reels_avg_watch_time',
    'ig_reels_video_view_total_time',
    'reels_skip_rate',
    'reposts',
    'crossposted_views',
  ],
};
/** Metrics removed in Graph v22 (all versions from 21 Apr 2025) or Facebook Login only. */
const RETIRED = ['impressions', 'plays', 'clips_replays_count', 'ig_reels_aggregated_all_plays_count', 'video_views'];
/** Account metrics (contract 4): only `reach` and `follower_count` have a time series. */
const ACCOUNT_METRICS = [
  'reach',
  'views',
  'accounts_engaged',
  'total_interactions',
  'follows_and_unfollows',
  'profile_links_taps',
  'follower_count',
];
const TITLES: Record<string, string> = { views: 'Views', reach: 'Accounts reached', saved: 'Saved', likes: 'Likes' };

/** `GET /{ig-media-id}/insights` and `GET /{ig-user-id}/insights` (contract 4). */
export function registerInsights(router: Router, state: InstagramState): void {
  router.get('/:id/insights', async (ctx) => {
    const call = await graphCall(ctx, state, 'insights');
    if (!call || !requireScope(ctx, call, INSIGHTS_SCOPE)) return;
    const id = ctx.params.id ?? '';
    const metrics = (call.params.get('metric') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (metrics.length === 0) return graphError(ctx, { code: 100, message: '(#100) The parameter metric is required' });
    if (id === 'me' || id === call.account.id || id === call.account.userId) return accountInsights(ctx, call, metrics);
    const media = state.media.get(id);
    if (!media || media.accountId !== call.account.id) return unsupportedGet(ctx, id);
    mediaInsights(ctx, media, metrics);
  });
}

function mediaInsights(ctx: Context, media: Media, metrics: string[]): void {
  if (media.parentId !== null) {
    return graphError(ctx, {
      code: 10,
      message: '(#10) Insights data is not available for any media within an Instagram Media album.',
    });
  }
  const allowed =
    media.productType === 'REELS'
      ? MEDIA_METRICS.REELS
      : MEDIA_METRICS[media.mediaType === 'CAROUSEL_ALBUM' ? 'CAROUSEL_ALBUM' : 'IMAGE'];
  const known = new Set([...MEDIA_METRICS.IMAGE, ...MEDIA_METRICS.REELS, ...RETIRED]);
  const unknownIndex = metrics.findIndex((m) => !known.has(m));
  if (unknownIndex >= 0) {
    return graphError(ctx, {
      code: 100,
      message: `(#100) metric[${unknownIndex}] must be one of the following values: ${allowed.join(', ')}`,
    });
  }
  const unsupported = metrics.filter((m) => !allowed.includes(m));
  if (unsupported.length > 0) {
    return graphError(ctx, {
      code: 100,
      message: `(#100) The Media Insights API does not support the ${unsupported.join(', ')} metric for this media product type.`,
    });
  }
  if (media.insightsUnavailable === 'not_enough_viewers') {
    return graphError(ctx, { code: 10, message: '(#10) Not enough viewers for the media to show insights' });
  }
  if (media.insightsUnavailable === 'empty') {
    ctx.body = { data: [] };
    return;
  }
  ctx.body = {
    data: metrics.map((name) => ({
      name,
      period: 'lifetime',
      values: [{ value: media.insights[name] ?? 0 }],
      title: TITLES[name] ?? name,
      description: `The ${name} of the media.`,
      id: `${media.id}/insights/${name}/lifetime`,
    })),
  };
}

function accountInsights(ctx: Context, call: GraphCall, metrics: string[]): void {
  const unknownIndex = metrics.findIndex((m) => !ACCOUNT_METRICS.includes(m));
  if (unknownIndex >= 0) {
    return graphError(ctx, {
      code: 100,
      message: `(#100) metric[${unknownIndex}] must be one of the following values: ${ACCOUNT_METRICS.join(', ')}`,
    });
  }
  if (call.params.get('period') !== 'day') {
    return graphError(ctx, { code: 100, message: '(#100) The parameter period must be day' });
  }
  const totalValue = call.params.get('metric_type') === 'total_value';
  const series = metrics.filter((m) => m !== 'reach' && m !== 'follower_count');
  if (!totalValue && series.length > 0) {
    return graphError(ctx, {
      code: 100,
      message: `(#100) The following metrics (${series.join(', ')}) should be specified with parameter metric_type=total_value`,
    });
  }
  if (metrics.includes('follower_count') && call.account.followersCount < 100) {
    return graphError(ctx, {
      code: 100,
      message: '(#100) follower_count is not available for Instagram accounts with fewer than 100 followers',
    });
  }
  const until = Number(call.params.get('until') ?? Math.floor(Date.now() / 1000));
  const userId = call.account.userId;
  ctx.body = {
    data: metrics.map((name) => {
      const value = call.account.insights[name] ?? 0;
      const row = {
        name,
        period: 'day',
        title: TITLES[name] ?? name,
        description: `The account's ${name}.`,
        id: `${userId}/insights/${name}/day`,
      };
      return totalValue
        ? { ...row, total_value: { value } }
        : { ...row, values: [{ value, end_time: new Date(until * 1000).toISOString().replace(/\.\d{3}Z$/, '+0000') }] };
    }),
  };
}
