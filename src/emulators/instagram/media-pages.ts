import type Router from '@koa/router';
import { escapeHtml } from './escape-html.js';
import { page } from './html-page.js';
import type { InstagramState, Media } from './state.js';

const SHOWN = 30;

/** The images of a media (its own, or its children's) as `<img>` tags served from the stored bytes. */
function pictures(state: InstagramState, media: Media): string {
  const items = media.children.length > 0 ? media.children.map((id) => state.media.get(id)) : [media];
  return items
    .map((item) => {
      if (!item?.fetched) return '';
      const { width, height } = item.fetched;
      if (item.fetched.kind === 'video')
        return `<p>Video ${width}x${height}, ${item.fetched.durationSec.toFixed(1)} s</p>`;
      return `<figure><img src="/__control/media/${escapeHtml(item.id)}/bytes" alt="Image ${width}x${height}" width="${width}" height="${height}" style="width:auto"><figcaption>${width}x${height}</figcaption></figure>`;
    })
    .join('');
}

function card(state: InstagramState, media: Media): string {
  const account = state.accounts.get(media.accountId);
  const kind =
    media.productType === 'REELS'
      ? 'Reel'
      : media.mediaType === 'CAROUSEL_ALBUM'
        ? `Carousel of ${media.children.length}`
        : 'Image';
  return `<p><b>@${escapeHtml(account?.username ?? 'unknown')}</b> · ${kind} · <a href="/p/${escapeHtml(media.shortcode)}/">${escapeHtml(media.shortcode)}</a></p>
<div class="slides">${pictures(state, media)}</div><p>${escapeHtml(media.caption ?? '')}</p>`;
}

/** `/p/{shortcode}/` (the permalink of a published media) and `/__control/media/page` (the newest media). */
export function registerMediaPages(router: Router, state: InstagramState): void {
  router.get('/p/:shortcode/', (ctx) => {
    const media = [...state.media.values()].find((m) => m.shortcode === ctx.params.shortcode && m.parentId === null);
    ctx.type = 'html';
    if (!media) {
      ctx.status = 404;
      ctx.body = page('Instagram emulator', "<h1>Sorry, this page isn't available.</h1>");
      return;
    }
    ctx.body = page(
      'Instagram emulator: post',
      `<p class="note">A post on a local emulator of Instagram, not Instagram.</p>${card(state, media)}`,
    );
  });

  router.get('/__control/media/page', (ctx) => {
    const newest = [...state.media.values()]
      .filter((m) => m.parentId === null)
      .sort((a, b) => b.publishedAt - a.publishedAt)
      .slice(0, SHOWN);
    ctx.type = 'html';
    ctx.body = page(
      'Instagram emulator: published media',
      `<p class="note">A local emulator of Instagram, not Instagram: nothing here is public.</p><h1>Published media</h1>
${newest.length > 0 ? `<ul class="posts">${newest.map((m) => `<li>${card(state, m)}</li>`).join('')}</ul>` : '<p>No media yet.</p>'}`,
    );
  });
}
