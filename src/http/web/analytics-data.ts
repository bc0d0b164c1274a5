import type { CoreDeps, Scope } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import {
  getAccountMetricsOperation,
  getPostMetricsOperation,
  listPostMetricsOperation,
  listTopHooksOperation,
} from '../../core/insights/operations.js';
import { POST_SORTS } from '../../core/insights/schema.js';
import type { PostMetricsSummary } from '../../core/insights/view.js';
import { requireMedia } from '../../core/media/manage-media.js';
import { publicUrlOf } from '../../core/media/view.js';
import { invokeOperation } from '../../core/operations/invoke.js';
import { listAllPlatforms, type PlatformOverview } from '../../core/platforms/list-platforms.js';
import { getPostOperation } from '../../core/posts/operations.js';
import type { ChartPoint } from './analytics-chart.js';
import { previewShape } from './posts-page.js';

const DAY_MS = 86_400_000;
/** The periods the page offers, in days. */
export const PERIODS = [7, 30, 90] as const;
export type Period = (typeof PERIODS)[number];
export type PostSort = (typeof POST_SORTS)[number];
/** The most posts a period shows (and exports): the highest by the chosen sort. */
export const MAX_ROWS = 200;

/** The networks the page filters by (`all`: both; hooks are ranked within a network either way). */
export const NETWORKS = ['all', 'tiktok', 'instagram'] as const;
export type NetworkChoice = (typeof NETWORKS)[number];

/** What the page and its CSV show: chosen in the query, defaulting to the last 30 days by views, every network. */
export interface AnalyticsQuery {
  days: Period;
  sort: PostSort;
  network: NetworkChoice;
}

export function analyticsQuery(query: Record<string, unknown>): AnalyticsQuery {
  const days = PERIODS.find((period) => String(period) === query.days) ?? 30;
  const sort = POST_SORTS.find((sort) => sort === query.sort) ?? 'views';
  const network = NETWORKS.find((network) => network === query.network) ?? 'all';
  return { days, sort, network };
}

/** The operations' `provider` filter for the chosen network (none for all). */
function providerOf(query: AnalyticsQuery): { provider?: Exclude<NetworkChoice, 'all'> } {
  return query.network === 'all' ? {} : { provider: query.network };
}

/** A row of the table: the post's numbers, its words and where it went. */
export interface AnalyticsRow {
  metrics: PostMetricsSummary;
  caption: string;
  account: string;
}

export interface Preview {
  src: string;
  width: number;
  height: number;
}

/** A top hook with its best post's first slides. */
export interface HookView {
  text: string;
  language: string;
  posts: number;
  medianViewsAt48h: number;
  previews: Preview[];
}

export interface AccountView {
  name: string;
  state: PlatformOverview['state'];
  followers: number | null;
  points: ChartPoint[];
}

export interface Analytics {
  query: AnalyticsQuery;
  start: Date;
  end: Date;
  rows: AnalyticsRow[];
  /** More posts than MAX_ROWS were published in the period. */
  cut: boolean;
  views: ChartPoint[];
  hooks: HookView[];
  pendingHooks: number;
  accounts: AccountView[];
}

/** The period's posts with their latest counts, highest first by `sort`, through list_post_metrics. */
export async function analyticsRows(
  deps: CoreDeps,
  scope: Scope,
  query: AnalyticsQuery,
): Promise<{ rows: AnalyticsRow[]; cut: boolean; start: Date; end: Date; names: Map<string, PlatformOverview> }> {
  const end = deps.now();
  const start = new Date(end.getTime() - query.days * DAY_MS);
  const accounts = (await listAllPlatforms(deps, scope)).filter(
    (account) => query.network === 'all' || account.platform.provider === query.network,
  );
  const names = new Map(accounts.map((account) => [account.platform.id, account]));
  const found: PostMetricsSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await invokeOperation(deps, scope, listPostMetricsOperation, {
      startDate: start.toISOString(),
      endDate: end.toISOString(),
      sortBy: query.sort,
      ...providerOf(query),
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    found.push(...page.posts);
    cursor = page.nextCursor;
  } while (cursor && found.length < MAX_ROWS);
  const rows = await Promise.all(
    found.slice(0, MAX_ROWS).map(async (metrics) => ({
      metrics,
      caption: (await postOf(deps, scope, metrics.postId))?.content ?? '',
      account: accountName(names.get(metrics.platformId)),
    })),
  );
  return { rows, cut: found.length > MAX_ROWS || cursor !== undefined, start, end, names };
}

/** Everything the page shows, read through the insight operations in the signed-in workspace. */
export async function readAnalytics(deps: CoreDeps, scope: Scope, query: AnalyticsQuery): Promise<Analytics> {
  const { rows, cut, start, end, names } = await analyticsRows(deps, scope, query);
  const series = await Promise.all(
    rows.map(async (row) => {
      const metrics = await invokeOperation(deps, scope, getPostMetricsOperation, { id: row.metrics.postId });
      return metrics.series.map((point) => ({ at: new Date(point.takenAt), views: point.views }));
    }),
  );
  const top = await invokeOperation(deps, scope, listTopHooksOperation, { limit: 5, ...providerOf(query) });
  const hooks = await Promise.all(
    top.hooks.map(async (hook) => ({
      text: hook.text,
      language: hook.language,
      posts: hook.posts,
      medianViewsAt48h: hook.medianViewsAt48h,
      previews: await previewsOf(deps, scope, hook.postIds[0]),
    })),
  );
  const accounts = await Promise.all(
    [...names.values()].map(async (account) => {
      const metrics = await invokeOperation(deps, scope, getAccountMetricsOperation, {
        id: account.platform.id,
        startDate: start.toISOString(),
        endDate: end.toISOString(),
      });
      return {
        name: accountName(account),
        state: account.state,
        followers: metrics.latest?.followers ?? null,
        points: lastOfEachDay(metrics.series.map((point) => ({ at: new Date(point.takenAt), value: point.followers }))),
      };
    }),
  );
  return {
    query,
    start,
    end,
    rows,
    cut,
    views: dailyViews(series, start, end),
    hooks,
    pendingHooks: top.pendingPosts,
    accounts,
  };
}

/**
 * The period's posts' views at the end of each UTC day from the period's first day to today: each
 * post counts with its newest snapshot taken by then (none yet: 0), so the line is what the posts had
 * reached, day by day.
 */
export function dailyViews(series: readonly { at: Date; views: number }[][], start: Date, end: Date): ChartPoint[] {
  const points: ChartPoint[] = [];
  for (let day = startOfDay(start); day.getTime() < end.getTime(); day = new Date(day.getTime() + DAY_MS)) {
    const until = Math.min(day.getTime() + DAY_MS, end.getTime() + 1);
    const value = series.reduce((sum, snapshots) => {
      const taken = snapshots.filter((snapshot) => snapshot.at.getTime() < until);
      return sum + (taken.at(-1)?.views ?? 0);
    }, 0);
    points.push({ at: day, value });
  }
  return points;
}

/** One point per UTC day: that day's last value (followers are read up to hourly). */
function lastOfEachDay(points: readonly ChartPoint[]): ChartPoint[] {
  const byDay = new Map<number, ChartPoint>();
  for (const point of points)
    byDay.set(startOfDay(point.at).getTime(), { at: startOfDay(point.at), value: point.value });
  return [...byDay.values()];
}

function startOfDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** The root post a metrics row is about, or null when it was deleted since (its numbers go with it). */
async function postOf(deps: CoreDeps, scope: Scope, postId: string) {
  try {
    return (await invokeOperation(deps, scope, getPostOperation, { id: postId })).root;
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return null;
    throw error;
  }
}

/** The first three slides of a hook's best post, as the posts page draws its previews. */
async function previewsOf(deps: CoreDeps, scope: Scope, postId: string | undefined): Promise<Preview[]> {
  const post = postId === undefined ? null : await postOf(deps, scope, postId);
  const previews: Preview[] = [];
  for (const mediaId of post?.mediaIds.slice(0, 3) ?? []) {
    const doc = await requireMedia(deps, scope, mediaId).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    });
    if (doc) previews.push({ src: `${publicUrlOf(doc, '')}/preview`, ...previewShape(doc) });
  }
  return previews;
}

export function accountName(account: PlatformOverview | undefined): string {
  if (!account) return 'An account no longer connected here';
  const { displayName, displayHandle } = account.platform;
  return `${displayName ?? 'Unnamed account'}${displayHandle ? ` (@${displayHandle})` : ''}`;
}
