import type Router from '@koa/router';
import { readForm } from './envelope.js';
import { escapeHtml } from './escape-html.js';
import { page } from './html-page.js';
import type { EmulatorOptions } from './options.js';
import type { EmulatorState } from './state.js';
import { videoNow } from './videos.js';

const HOUR_MS = 3_600_000;
/** The buttons: how far each moves the post clock, in hours. */
const STEPS = [
  [1, 'Advance 1 hour'],
  [24, 'Advance 24 hours'],
  [168, 'Advance 7 days'],
] as const;
const POSTS_SHOWN = 20;
const NUMBERS = new Intl.NumberFormat('en-US');

/**
 * `/__control/clock/page`: the post clock (contract 8.4.4) for a person in a browser, with buttons that age every
 * post at once, and the newest posts with their counts now. The same as `POST /__control/clock`, without curl.
 */
export function registerControlPage(router: Router, state: EmulatorState, options: EmulatorOptions): void {
  router.get('/__control/clock/page', (ctx) => {
    ctx.type = 'html';
    ctx.body = clockPage(state, options);
  });

  router.post('/__control/clock/page', async (ctx) => {
    const hours = Number((await readForm(ctx))?.get('hours'));
    if (!STEPS.some(([step]) => step === hours)) {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = page('TikTok emulator: post clock', '<p>Pick one of the buttons on the clock page.</p>');
      return;
    }
    state.postClockOffsetMs += hours * HOUR_MS;
    state.save();
    ctx.redirect('/__control/clock/page');
  });
}

function clockPage(state: EmulatorState, options: EmulatorOptions): string {
  const offsetHours = Math.round((state.postClockOffsetMs / HOUR_MS) * 10) / 10;
  const buttons = STEPS.map(
    ([hours, label]) =>
      `<form method="post" action="/__control/clock/page"><input type="hidden" name="hours" value="${hours}"><button>${label}</button></form>`,
  ).join('');
  const rows = [...state.publishes.values()]
    .filter((publish) => publish.status === 'PUBLISH_COMPLETE')
    .sort((a, b) => (b.settledAt ?? 0) - (a.settledAt ?? 0))
    .slice(0, POSTS_SHOWN)
    .map((publish) => {
      const postId = publish.postIds[0];
      const video = postId === undefined ? undefined : videoNow(state, options.statsSeed, postId);
      if (!video) {
        return `<li>A ${escapeHtml(publish.effectivePrivacyLevel ?? 'private')} post: not public, so TikTok counts nothing.</li>`;
      }
      const { viewCount, likeCount } = video.counts;
      return `<li>Post ${escapeHtml(video.postId)}, ${NUMBERS.format(Math.floor(video.ageMinutes / 60))} h old: <strong>${NUMBERS.format(viewCount)} views</strong>, ${NUMBERS.format(likeCount)} likes${video.listed ? '' : ' (not public: TikTok reports nothing)'}</li>`;
    });
  return page(
    'TikTok emulator: post clock',
    `<p class="note">A local emulator of TikTok, not TikTok. Posts age on this clock, so their counts grow as they would over hours or days; Postdeck reads them at each post's next snapshot.</p>
<h1>Post clock</h1>
<p>Posts are <strong>${offsetHours} hours</strong> older than real time (post clock ${escapeHtml(new Date(state.postNow()).toISOString())}).</p>
<div class="buttons">${buttons}</div>
<h2>Newest posts</h2>
${rows.length > 0 ? `<ul class="posts">${rows.join('')}</ul>` : '<p>No posts yet.</p>'}`,
  );
}
