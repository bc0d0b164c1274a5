import type { Analytics, AnalyticsQuery, AnalyticsRow, HookView, NetworkChoice, PostSort } from './analytics-data.js';
import { MAX_ROWS, NETWORKS, PERIODS } from './analytics-data.js';
import { lineChart } from './analytics-chart.js';
import { notice } from './forms.js';
import { markup, raw, type SafeHtml } from './html.js';
import { when } from './layout.js';
import { renderTable } from './table.js';

const NUMBERS = new Intl.NumberFormat('en-US');
const SORT_LABELS: Record<PostSort, string> = {
  views: 'Views',
  likes: 'Likes',
  shares: 'Shares',
  engagement_rate: 'Engagement rate',
};
const WAITING =
  "A public post's first numbers arrive within 5 minutes of its publishing, then hourly for its first two days; TikTok counts only public posts.";
const NETWORK_LABELS: Record<NetworkChoice, string> = { all: 'All networks', tiktok: 'TikTok', instagram: 'Instagram' };
/** A next count due within this of the page's time is shown as due now: the collector looks every minute. */
const DUE_NOW_WITHIN_MS = 60_000;

/** The analytics page's main content. */
export function analyticsView(analytics: Analytics, workspaceId: string): SafeHtml {
  const { query } = analytics;
  const href = (changes: Partial<AnalyticsQuery>, path = '/analytics') => {
    const next = { ...query, ...changes };
    const network = next.network === 'all' ? '' : `&network=${next.network}`;
    return `${path}?ws=${workspaceId}&days=${next.days}&sort=${next.sort}${network}`;
  };
  const from = query.network === 'all' ? 'TikTok and Instagram' : NETWORK_LABELS[query.network];
  return markup`<h1>Analytics</h1>
    <div class="cal-nav">
      <ul aria-label="Period">
        ${PERIODS.map(
          (days) =>
            markup`<li><a href="${href({ days })}" ${days === query.days ? raw('aria-current="page"') : ''}>Last ${days} days</a></li>`,
        )}
      </ul>
      <ul aria-label="Network">
        ${NETWORKS.map(
          (network) =>
            markup`<li><a href="${href({ network })}" ${network === query.network ? raw('aria-current="page"') : ''}>${NETWORK_LABELS[network]}</a></li>`,
        )}
      </ul>
      <a href="${href({}, '/analytics.csv')}" download>Download CSV</a>
    </div>
    <p class="muted">
      Posts published from ${when(analytics.start)} to ${when(analytics.end)}, with their latest counts from ${from}.
    </p>
    ${viewsSection(analytics)} ${postsSection(analytics, href)} ${hooksSection(analytics)}
    ${accountsSection(analytics)}`;
}

function viewsSection(analytics: Analytics): SafeHtml {
  const total = analytics.views.at(-1)?.value ?? 0;
  const body =
    total === 0
      ? notice(`No views counted in this period yet. ${WAITING}`, 'info')
      : markup`<figure class="chart-box">
          ${lineChart({
            label: `Views of the period's posts, day by day: ${NUMBERS.format(total)} by now`,
            unit: 'views',
            points: analytics.views,
          })}
          <figcaption class="muted">
            What the period's posts had reached at the end of each day (UTC): ${NUMBERS.format(total)} views by now.
          </figcaption>
        </figure>`;
  return markup`<section class="analytics" aria-labelledby="views-h">
    <h2 id="views-h">Views over time</h2>
    ${body}
  </section>`;
}

function postsSection(analytics: Analytics, href: (changes: Partial<AnalyticsQuery>) => string): SafeHtml {
  const { rows, query } = analytics;
  const sorts = (Object.keys(SORT_LABELS) as PostSort[]).map(
    (sort) =>
      markup`<li><a href="${href({ sort })}" ${sort === query.sort ? raw('aria-current="page"') : ''}>${SORT_LABELS[sort]}</a></li>`,
  );
  const empty = notice(
    `No posts were published in the last ${query.days} days. Publish one from Posts: ${WAITING}`,
    'info',
  );
  return markup`<section class="analytics" aria-labelledby="posts-h">
    <h2 id="posts-h">Posts</h2>
    ${
      rows.length === 0
        ? empty
        : markup`<div class="cal-nav">
            <ul aria-label="Sort by">
              ${sorts}
            </ul>
          </div>
          <div class="post-counts">
          ${renderTable({
            caption: `${rows.length} post${rows.length === 1 ? '' : 's'}, highest ${SORT_LABELS[query.sort].toLowerCase()} first${
              analytics.cut ? ` (the top ${MAX_ROWS})` : ''
            }`,
            rows,
            columns: [
              { header: 'Post', cell: (row) => postCell(row, analytics.end) },
              { header: 'Views', cell: (row) => count(row.metrics.metrics?.views) },
              { header: 'Likes', cell: (row) => count(row.metrics.metrics?.likes) },
              { header: 'Comments', cell: (row) => count(row.metrics.metrics?.comments) },
              { header: 'Shares', cell: (row) => count(row.metrics.metrics?.shares) },
              { header: 'Engagement', cell: (row) => rate(row.metrics.engagementRate) },
            ],
          })}`
    }
  </section>`;
}

function postCell(row: AnalyticsRow, now: Date): SafeHtml {
  const { metrics } = row;
  const caption = row.caption.length > 90 ? `${row.caption.slice(0, 89)}…` : row.caption;
  const counted = metrics.metrics ? markup`Counted ${when(new Date(metrics.metrics.takenAt))}` : markup`No numbers yet`;
  const status =
    metrics.status === 'unavailable'
      ? markup`<span class="badge off">Unavailable</span> <span class="muted">${metrics.unavailableReason}</span>`
      : markup`<span class="muted">${counted}${nextCount(metrics.nextSnapshotAt, now)}</span>`;
  return markup`<strong>${caption || 'No caption'}</strong><br />
    <span class="muted">${row.account} · published ${when(new Date(metrics.publishedAt))}</span><br />
    ${status}`;
}

/** When the next count is taken: never a time already gone (a pending one is due now). */
function nextCount(nextSnapshotAt: string | null, now: Date): SafeHtml | string {
  if (nextSnapshotAt === null) return '';
  const next = new Date(nextSnapshotAt);
  if (next.getTime() - now.getTime() < DUE_NOW_WITHIN_MS) return markup` · next count due now`;
  return markup` · next count ${when(next)}`;
}

function hooksSection(analytics: Analytics): SafeHtml {
  const pending =
    analytics.pendingHooks > 0
      ? markup`<p class="muted">
          ${analytics.pendingHooks} more post${analytics.pendingHooks === 1 ? '' : 's'} with a hook will be ranked once 48
          hours old.
        </p>`
      : '';
  const body =
    analytics.hooks.length === 0
      ? notice(
          'No hooks ranked yet. A carousel whose first slide Postdeck captioned is ranked by its views once it is 48 hours old.',
          'info',
        )
      : markup`<ol class="hooks">
          ${analytics.hooks.map(hookItem)}
        </ol>`;
  return markup`<section class="analytics" aria-labelledby="hooks-h">
    <h2 id="hooks-h">Top hooks</h2>
    <p class="muted">Ranked by the median views of their posts at 48 hours, so new posts compete fairly.</p>
    ${body} ${pending}
  </section>`;
}

function hookItem(hook: HookView): SafeHtml {
  return markup`<li class="hook">
    <p><strong>“${hook.text}”</strong></p>
    <p class="muted">
      ${NUMBERS.format(hook.medianViewsAt48h)} views at 48 hours (median) · ${hook.posts}
      post${hook.posts === 1 ? '' : 's'} · ${hook.language}
    </p>
    <div class="hook-slides">
      ${hook.previews.map(
        (preview, i) =>
          markup`<img
            class="post-thumb"
            src="${preview.src}"
            width="${preview.width}"
            height="${preview.height}"
            alt="Slide ${i + 1} of the best post with this hook"
            loading="lazy"
          />`,
      )}
    </div>
  </li>`;
}

function accountsSection(analytics: Analytics): SafeHtml {
  const body =
    analytics.accounts.length === 0
      ? notice('No TikTok account is connected. Connect one under Social accounts to see its followers.', 'info')
      : analytics.accounts.map(
          (account) => markup`<div class="account-followers">
            <h3>${account.name}${account.state === 'ready' ? '' : markup` <span class="badge off">${account.state.replace('_', ' ')}</span>`}</h3>
            ${
              account.points.length === 0
                ? markup`<p class="muted">
                  No follower counts in this period yet: they are read with the account's posts, within minutes of one
                  being published.
                </p>`
                : markup`<p>${NUMBERS.format(account.followers ?? 0)} followers now</p>
                  <figure class="chart-box">
                    ${lineChart({ label: `Followers of ${account.name}, day by day`, unit: 'followers', points: account.points })}
                  </figure>`
            }
          </div>`,
        );
  return markup`<section class="analytics" aria-labelledby="followers-h">
    <h2 id="followers-h">Followers</h2>
    ${body}
  </section>`;
}

function count(n: number | undefined): string {
  return n === undefined ? '—' : NUMBERS.format(n);
}

function rate(r: number | null): string {
  return r === null ? '—' : `${(r * 100).toFixed(1)}%`;
}
