import type { PostView } from '../../core/posts/view.js';
import { csrfField, hidden, notice } from './forms.js';
import { markup, raw, type SafeHtml } from './html.js';
import { calendarHref, dayKey, type Calendar, type CalendarMode } from './posts-calendar.js';

/** One post as the calendar shows it, with what the page looked up about it. */
export interface CalendarPost {
  post: PostView;
  /** The account, as people know it (name and handle). */
  account: string;
  /** The account's network: its name, the words of a link to a published post, whether it is the built-in emulator. */
  network: { name: string; releaseLabel: string; emulated: boolean } | null;
  /** The same, short enough for a week column (the handle when there is one). */
  shortAccount: string;
  /** What is attached, in words ("1 video", "3 images", "No media"). */
  media: string;
  /**
   * The first slide's (or the video's) preview, a path on this server, with its shape (so the card
   * keeps the slide's aspect before the picture loads); null without media.
   */
  thumbnail: { src: string; width: number; height: number } | null;
}

/** What the posts page shows. */
export interface PostsView {
  csrf: string;
  workspaceId: string;
  workspaceName: string;
  calendar: Calendar;
  /** The current UTC time, HH:MM, so people can convert what they type. */
  now: string;
  posts: CalendarPost[];
  done: string | undefined;
  /** An action that failed: core's message and, for invalid requests, what was wrong in detail. */
  problem: { message: string; details: string[] } | undefined;
}

type State = PostView['state'];

const BADGES: Record<State, SafeHtml> = {
  DRAFT: markup`<span class="badge draft">DRAFT</span>`,
  QUEUE: markup`<span class="badge queue">QUEUE</span>`,
  PUBLISHING: markup`<span class="badge queue">PUBLISHING</span>`,
  PUBLISHED: markup`<span class="badge done">PUBLISHED</span>`,
  ERROR: markup`<span class="badge off">ERROR</span>`,
};

const WEEK_EXCERPT = 60;
const DAY_EXCERPT = 280;

/** The page body: heading, notices, the view switch and steps, then the week grid or the day list. */
export function postsView(view: PostsView): SafeHtml {
  const { calendar } = view;
  const byDay = new Map<string, CalendarPost[]>(calendar.days.map((day) => [day, []]));
  for (const item of view.posts) byDay.get(dayKey(timeOf(item.post)))?.push(item);
  return markup`<h1>Posts of ${view.workspaceName}</h1>
    ${notice(view.done, 'success')}${problemNotice(view.problem)}
    ${calendarNav(view)}
    <h2 class="range">${rangeTitle(calendar)}</h2>
    <p class="muted">
      All times are UTC; it is now ${view.now} UTC. Drafts without a time set show on the day they were created.
      ${calendar.mode === 'week' ? 'Open a day to publish, schedule or delete its posts.' : ''}
    </p>
    ${calendar.mode === 'week' ? weekGrid(view, byDay) : dayList(view, byDay.get(calendar.date) ?? [])}`;
}

function problemNotice(problem: PostsView['problem']): SafeHtml {
  if (!problem) return markup``;
  // Core's message often quotes the first few details already; list only the ones it does not.
  const details = problem.details.filter((d) => !problem.message.includes(d));
  return markup`<div class="notice error" role="alert" aria-live="assertive">
    ${problem.message}
    ${details.length > 0 ? markup`<ul>${details.map((d) => markup`<li>${d}</li>`)}</ul>` : ''}
  </div>`;
}

function calendarNav(view: PostsView): SafeHtml {
  const { calendar: c, workspaceId: ws } = view;
  const unit = c.mode === 'week' ? 'week' : 'day';
  const current = (on: boolean) => (on ? raw(' aria-current="page"') : '');
  return markup`<nav class="cal-nav" aria-label="Calendar">
    <ul>
      <li><a href="${calendarHref(ws, 'week', c.date)}" ${current(c.mode === 'week')}>Week</a></li>
      <li><a href="${calendarHref(ws, 'day', c.date)}" ${current(c.mode === 'day')}>Day</a></li>
    </ul>
    <ul>
      <li><a href="${calendarHref(ws, c.mode, c.previous)}" rel="prev">← Previous ${unit}</a></li>
      <li><a href="${calendarHref(ws, c.mode, c.today)}">Today</a></li>
      <li><a href="${calendarHref(ws, c.mode, c.next)}" rel="next">Next ${unit} →</a></li>
    </ul>
  </nav>`;
}

function rangeTitle(c: Calendar): string {
  const first = c.days[0] ?? c.date;
  const last = c.days[c.days.length - 1] ?? c.date;
  return c.mode === 'day' ? `${longDay(first)} (UTC)` : `Week of ${shortDay(first)} – ${longDay(last)} (UTC)`;
}

function weekGrid(view: PostsView, byDay: Map<string, CalendarPost[]>): SafeHtml {
  const days = view.calendar.days.map((day) => {
    const posts = byDay.get(day) ?? [];
    return markup`<li class="day${day === view.calendar.today ? ' today' : ''}">
      <h3>
        <a href="${calendarHref(view.workspaceId, 'day', day)}">
          ${weekday(day)} <span class="muted">${shortDay(day)}</span>
        </a>
      </h3>
      ${
        posts.length === 0
          ? markup`<p class="muted empty">No posts</p>`
          : markup`<ul class="posts">
              ${posts.map((item) => markup`<li>${postCard(view, item, 'week')}</li>`)}
            </ul>`
      }
    </li>`;
  });
  const total = view.posts.length;
  return markup`<ol class="week" aria-label="${total === 1 ? '1 post' : `${total} posts`} this week">
      ${days}
    </ol>
    ${total === 0 ? emptyText('week') : ''}`;
}

function dayList(view: PostsView, posts: CalendarPost[]): SafeHtml {
  if (posts.length === 0) return emptyText('day');
  return markup`<ul class="posts day-posts" aria-label="${posts.length === 1 ? '1 post' : `${posts.length} posts`}">
    ${posts.map((item) => markup`<li>${postCard(view, item, 'day')}</li>`)}
  </ul>`;
}

function emptyText(mode: CalendarMode): SafeHtml {
  return markup`<div class="card">
    <p>No posts ${mode === 'week' ? 'this week' : 'on this day'}.</p>
    <p class="muted">
      Posts are created through the API, the CLI or an AI assistant connected to Postdeck; drafts and scheduled posts
      show up here.
    </p>
  </div>`;
}

function postCard(view: PostsView, item: CalendarPost, mode: CalendarMode): SafeHtml {
  const { post } = item;
  const text = post.content.trim();
  return markup`<article class="post ${post.state.toLowerCase()}" id="post-${post.id}">
    <p class="post-head">${timeText(post, mode)} ${BADGES[post.state]}</p>
    ${item.thumbnail ? thumbnail(item.thumbnail) : ''}
    ${
      mode === 'week'
        ? markup`<p class="post-account" title="${item.account}">${item.shortAccount}</p>`
        : markup`<p class="post-account">${item.account}</p>`
    }
    <p class="post-text">
      ${text ? excerpt(text, mode === 'week' ? WEEK_EXCERPT : DAY_EXCERPT) : markup`<span class="muted">No caption</span>`}
    </p>
    <p class="post-media muted">${item.media}</p>
    ${stateText(item, mode)}
    ${
      mode === 'day'
        ? actions(view, post)
        : actionable(post)
          ? markup`<p class="post-open">
              <a href="${calendarHref(view.workspaceId, 'day', dayKey(timeOf(post)))}#post-${post.id}">Manage</a>
            </p>`
          : ''
    }
  </article>`;
}

// Drawn at the slide's own shape (a 4:5 slide is not cropped to 9:16); the CSS sets the width.
function thumbnail(picture: NonNullable<CalendarPost['thumbnail']>): SafeHtml {
  const { src, width, height } = picture;
  return markup`<img class="post-thumb" src="${src}" width="${String(width)}" height="${String(height)}" alt="" loading="lazy">`;
}

function timeText(post: PostView, mode: CalendarMode): SafeHtml {
  const suffix = mode === 'day' ? ' UTC' : '';
  if (post.scheduledFor === null) {
    return markup`<span class="time muted">No time set</span>`;
  }
  return markup`<time class="time" datetime="${post.scheduledFor}">${post.scheduledFor.slice(11, 16)}${suffix}</time>`;
}

function stateText(item: CalendarPost, mode: CalendarMode): SafeHtml {
  const { post, network } = item;
  const networkName = network?.name ?? 'the network';
  switch (post.state) {
    case 'PUBLISHED': {
      // The engine writes the network's https link (the emulator's own address in emulator mode, often
      // plain http on this machine); anything else is not offered as a link.
      const schemes = network?.emulated ? ['https://', 'http://'] : ['https://'];
      const url = schemes.some((scheme) => post.releaseUrl?.startsWith(scheme)) ? post.releaseUrl : null;
      return url && network
        ? markup`<p class="post-state"><a href="${url}" rel="noreferrer noopener">${network.releaseLabel}</a></p>`
        : markup`<p class="post-state muted">Published; ${networkName} has not shared its link yet.</p>`;
    }
    case 'ERROR':
      return markup`<p class="post-state error-text">
        ${excerpt(post.errorText ?? 'Publishing failed.', mode === 'week' ? WEEK_EXCERPT : Infinity)}
      </p>`;
    case 'PUBLISHING':
      return markup`<p class="post-state muted">Being sent to ${networkName} right now.</p>`;
    default:
      return markup``;
  }
}

function actionable(post: PostView): boolean {
  return post.state === 'DRAFT' || post.state === 'QUEUE' || post.state === 'ERROR';
}

function actions(view: PostsView, post: PostView): SafeHtml {
  if (!actionable(post)) return markup``;
  const fields = markup`${csrfField(view.csrf)}${hidden('workspaceId', view.workspaceId)}${hidden(
    'view',
    view.calendar.mode,
  )}${hidden('date', view.calendar.date)}`;
  const at = post.scheduledFor?.slice(0, 16) ?? '';
  const parts: SafeHtml[] = [];
  if (post.state === 'DRAFT') {
    parts.push(
      markup`<form method="post" action="/posts/${post.id}/publish">
        ${fields}<button type="submit" class="primary small">Publish now</button>
      </form>`,
      timeForm(fields, post.id, 'schedule', 'Publish at (UTC)', 'Schedule', at),
      markup`<details>
        <summary>Move the draft without publishing it</summary>
        ${timeForm(fields, post.id, 'reschedule', 'New time (UTC), stays a draft', 'Move draft', at)}
      </details>`,
    );
  }
  if (post.state === 'QUEUE') {
    parts.push(timeForm(fields, post.id, 'reschedule', 'New time (UTC)', 'Reschedule', at));
  }
  parts.push(
    markup`<form method="post" action="/posts/${post.id}/delete" class="delete">
      ${fields}
      <label class="confirm">
        <input type="checkbox" name="confirm" value="yes" required />
        ${post.state === 'DRAFT' ? 'Yes, delete this draft' : 'Yes, delete this post'}
      </label>
      <button type="submit" class="danger small">Delete</button>
    </form>`,
  );
  return markup`<div class="post-actions">${parts}</div>`;
}

function timeForm(
  fields: SafeHtml,
  postId: string,
  action: 'schedule' | 'reschedule',
  label: string,
  button: string,
  value: string,
): SafeHtml {
  const id = `${action}-${postId}`;
  return markup`<form method="post" action="/posts/${postId}/${action}" class="when">
    ${fields}
    <label for="${id}">${label}</label>
    <input id="${id}" type="datetime-local" name="scheduledFor" value="${value}" required />
    <button type="submit" class="secondary small">${button}</button>
  </form>`;
}

/** Where the API puts a post: its scheduled time, or its creation for a draft without one. */
function timeOf(post: PostView): Date {
  return new Date(post.scheduledFor ?? post.createdAt);
}

function excerpt(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function dayParts(day: string): { date: Date; weekday: string; month: string } {
  const date = new Date(`${day}T00:00:00.000Z`);
  return { date, weekday: WEEKDAYS[date.getUTCDay()] ?? '', month: MONTHS[date.getUTCMonth()] ?? '' };
}

function weekday(day: string): string {
  return dayParts(day).weekday.slice(0, 3);
}

function shortDay(day: string): string {
  const { date, month } = dayParts(day);
  return `${date.getUTCDate()} ${month}`;
}

function longDay(day: string): string {
  const { date, weekday: name, month } = dayParts(day);
  return `${name} ${date.getUTCDate()} ${month} ${date.getUTCFullYear()}`;
}
