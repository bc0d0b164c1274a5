import { z } from 'zod';
import { PlatformSchema } from '../platforms/schema.js';
import { END_DATE_RULE } from '../date-range.js';

const DateTimeSchema = z.iso.datetime({ offset: true });
const Count = z.int().min(0);

export const PostCountsSchema = z
  .object({
    views: Count,
    likes: Count,
    comments: Count,
    shares: Count,
    takenAt: z.iso.datetime().describe('when TikTok reported these counts'),
  })
  .meta({ id: 'PostCounts' });

export const HookSchema = z
  .object({
    text: z.string().describe("the first slide's caption, as written or generated"),
    textStyleId: z.string().describe('the caption text style it was drawn with'),
    language: z.string().describe('the caption language (ISO code)'),
  })
  .meta({ id: 'Hook' });

/** One post's numbers without its series: a row of the analytics list. */
export const PostMetricsSummarySchema = z
  .object({
    postId: z.uuid(),
    platformId: z.uuid().describe('the TikTok account it was published to'),
    releaseId: z.string().nullable().describe("TikTok's post id; null while TikTok withholds it"),
    publishedAt: z.iso.datetime(),
    status: z
      .enum(['collecting', 'final', 'unavailable'])
      .describe('collecting: snapshots continue to day 30; final: done; unavailable: see unavailableReason'),
    unavailableReason: z
      .string()
      .nullable()
      .describe('why TikTok returns nothing for it (not public, made private or removed); the last counts stay'),
    metrics: PostCountsSchema.nullable().describe('the latest counts; null before the first snapshot'),
    engagementRate: z
      .number()
      .nullable()
      .describe('(likes + comments + shares) / views of the latest counts; null without views'),
    viewsAt48h: z.int().nullable().describe('views when the post was 48 hours old, the measure hooks are ranked by'),
    nextSnapshotAt: z.iso
      .datetime()
      .nullable()
      .describe('when the next snapshot is due, or the time of asking once it is pending; null once collection ended'),
    hook: HookSchema.nullable().describe("a carousel's first-slide caption when Postdeck composited it; else null"),
  })
  .meta({ id: 'PostMetricsSummary' });

export const PostMetricsSchema = PostMetricsSummarySchema.extend({
  series: z
    .array(PostCountsSchema.extend({ ageHours: z.number().describe('hours after publishing') }))
    .describe('every snapshot, oldest first'),
}).meta({ id: 'PostMetrics' });

export const PostMetricsListSchema = z
  .object({
    posts: z.array(PostMetricsSummarySchema),
    nextCursor: z.string().optional().describe('pass as `cursor` for the next page; absent on the last page'),
  })
  .meta({ id: 'PostMetricsList' });

const NetworkFilterSchema = z
  .enum(PlatformSchema.shape.provider.options)
  .optional()
  .describe('only posts of accounts on this network: `tiktok` or `instagram`');

export const POST_SORTS = ['views', 'likes', 'shares', 'engagement_rate'] as const;

export const ListPostMetricsInputSchema = z.object({
  startDate: DateTimeSchema.optional().describe('publishing time from (inclusive); default endDate minus 30 days'),
  endDate: DateTimeSchema.optional().describe(`publishing time to (exclusive); default now; ${END_DATE_RULE}`),
  platformId: z.uuid().optional().describe('only posts of this account (from list platforms)'),
  provider: NetworkFilterSchema,
  sortBy: z
    .enum(POST_SORTS)
    .default('views')
    .describe('highest first, by the latest counts; posts without counts yet come last'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('page size, 1 to 100; default 50'),
  cursor: z.string().min(1).max(300).optional().describe('nextCursor of the previous page (same sortBy)'),
});
export type ListPostMetricsInput = z.output<typeof ListPostMetricsInputSchema>;

export const TopHookSchema = z
  .object({
    text: z.string().describe("the hook as its best post's first slide showed it"),
    language: z.string(),
    posts: z.int().min(1).describe('how many ranked posts used this hook (same words, any case and spacing)'),
    medianViewsAt48h: z.int().describe('the median of those posts’ views at 48 hours: the ranking measure'),
    bestViewsAt48h: z.int(),
    textStyles: z
      .array(z.object({ textStyleId: z.string(), posts: z.int().min(1) }))
      .describe('the text styles it was drawn in, most used first'),
    postIds: z.array(z.uuid()).describe('the posts that used it, best first'),
  })
  .meta({ id: 'TopHook' });

export const TopHooksSchema = z
  .object({
    rankingAgeHours: z.literal(48).describe('every post is compared by its views at this age'),
    hooks: z.array(TopHookSchema).describe('best first'),
    pendingPosts: z
      .int()
      .min(0)
      .describe('posts with a hook younger than 48 hours: not ranked yet, so a new post never competes with old ones'),
  })
  .meta({ id: 'TopHooks' });

export const ListTopHooksInputSchema = z.object({
  platformId: z.uuid().optional().describe('only posts of this account'),
  provider: NetworkFilterSchema,
  language: z.string().min(2).max(35).optional().describe('only hooks in this language (ISO code)'),
  limit: z.coerce.number().int().min(1).max(50).default(10).describe('how many hooks, 1 to 50; default 10'),
});
export type ListTopHooksInput = z.output<typeof ListTopHooksInputSchema>;

export const AccountCountsSchema = z
  .object({
    followers: Count,
    following: Count,
    likes: Count.nullable().describe(
      'likes over all of the account’s posts; null where the network has no such total (Instagram)',
    ),
    videos: Count.describe('posts on the account'),
    takenAt: z.iso.datetime(),
  })
  .meta({ id: 'AccountCounts' });

export const AccountMetricsSchema = z
  .object({
    platformId: z.uuid(),
    latest: AccountCountsSchema.nullable().describe('the newest totals; null before the first snapshot'),
    series: z.array(AccountCountsSchema).describe('the totals in the range, oldest first (at most one an hour)'),
  })
  .meta({ id: 'AccountMetrics' });

export const GetAccountMetricsInputSchema = z.object({
  id: z.uuid().describe('the TikTok account (platform) id, from list platforms'),
  startDate: DateTimeSchema.optional().describe('inclusive; default endDate minus 30 days'),
  endDate: DateTimeSchema.optional().describe(`exclusive; default now; ${END_DATE_RULE}`),
});
export type GetAccountMetricsInput = z.output<typeof GetAccountMetricsInputSchema>;

export const PostMetricsInputSchema = z.object({
  id: z.uuid().describe('the post id (or its group id, which stands for its root post)'),
});
