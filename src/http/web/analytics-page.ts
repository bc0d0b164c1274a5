import type { Router } from '@koa/router';
import type { AppState } from '../shared/context.js';
import { analyticsQuery, analyticsRows, readAnalytics, type AnalyticsQuery } from './analytics-data.js';
import { toCsv } from './analytics-csv.js';
import { analyticsView } from './analytics-view.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { signedInPage } from './page-context.js';
import { workspaceParam } from './workspace.js';

/**
 * What the workspace's posts did on TikTok and Instagram (`/analytics?days=7|30|90&sort=…&network=tiktok|instagram`): the period's posts
 * with their latest counts, the views they reached day by day, the top hooks with their slides and
 * each account's followers; `/analytics.csv` is the table as a file. Any member may look; every
 * figure is read through the insight operations in the signed-in workspace.
 */
export function registerAnalyticsPages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;

  router.get('/analytics', async (ctx) => {
    const query = analyticsQuery(ctx.query);
    const page = await signedInPage(ctx, options, 'analytics', workspaceParam(ctx), keep(query));
    const analytics = await readAnalytics(deps, page.scope, query);
    sendPage(ctx, {
      title: 'Analytics',
      chrome: page.chrome,
      main: analyticsView(analytics, page.workspace.workspaceId),
    });
  });

  router.get('/analytics.csv', async (ctx) => {
    const query = analyticsQuery(ctx.query);
    const page = await signedInPage(ctx, options, 'analytics', workspaceParam(ctx));
    const { rows, end } = await analyticsRows(deps, page.scope, query);
    const csv = toCsv(
      [
        'post_id',
        'published_at',
        'account',
        'caption',
        'hook',
        'views',
        'likes',
        'comments',
        'shares',
        'engagement_rate',
        'views_at_48h',
        'counted_at',
        'status',
      ],
      rows.map(({ metrics, caption, account }) => [
        metrics.postId,
        metrics.publishedAt,
        account,
        caption,
        metrics.hook?.text ?? null,
        metrics.metrics?.views ?? null,
        metrics.metrics?.likes ?? null,
        metrics.metrics?.comments ?? null,
        metrics.metrics?.shares ?? null,
        metrics.engagementRate,
        metrics.viewsAt48h,
        metrics.metrics?.takenAt ?? null,
        metrics.status,
      ]),
    );
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set(
      'Content-Disposition',
      `attachment; filename="postdeck-analytics-${query.days}d-${end.toISOString().slice(0, 10)}.csv"`,
    );
    ctx.body = csv;
  });
}

/** The choices the workspace switcher keeps. */
function keep(query: AnalyticsQuery): Record<string, string> {
  return { days: String(query.days), sort: query.sort, ...(query.network === 'all' ? {} : { network: query.network }) };
}
