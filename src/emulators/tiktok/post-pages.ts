import type { Middleware } from 'koa';
import type { PublishEngine } from './engine.js';
import { escapeHtml } from './escape-html.js';
import { page } from './html-page.js';
import type { Publish } from './publish-model.js';
import type { Account, EmulatorState } from './state.js';

/** `/@{username}`, `/@{username}/video/{id}` or `/@{username}/photo/{id}`, as on www.tiktok.com. */
const PUBLIC_PATH = /^\/@([^/]+)(?:\/(video|photo)\/(\d+))?\/?$/;

type Obj = Record<string, unknown>;

/**
 * The emulator's stand-in for TikTok's public pages, where a post's link points when Postdeck runs
 * against the emulator: a published post (its caption, who may see it, its photos from the URLs
 * they were pulled from) and a creator's profile listing their posts. Nothing here is public:
 * the page says it is an emulator.
 */
export function postPages(state: EmulatorState, engine: PublishEngine): Middleware {
  return async (ctx, next) => {
    const match = ctx.method === 'GET' || ctx.method === 'HEAD' ? PUBLIC_PATH.exec(ctx.path) : null;
    if (!match) {
      await next();
      return;
    }
    const [, handle = '', kind, postId] = match;
    const username = safeDecode(handle);
    const account = [...state.accounts.values()].find((a) => a.username === username);
    const published = account ? publishedBy(state, engine, account) : [];
    const post = postId ? published.find((p) => p.kind === kind && p.postIds.includes(postId)) : undefined;
    ctx.type = 'html';
    if (!account || (postId && !post)) {
      ctx.status = 404;
      ctx.body = page(
        'TikTok emulator: not found',
        `${NOTE}<h1>Couldn't find this ${postId ? 'post' : 'account'}</h1><p>No emulated ${postId ? `post ${escapeHtml(postId)} of @${escapeHtml(username)}` : `account @${escapeHtml(username)}`} exists.</p>`,
      );
      return;
    }
    ctx.body = post ? postPage(account, post) : profilePage(account, published);
  };
}

const NOTE = `<p class="note">A local emulator of TikTok, not TikTok: this post is not on tiktok.com.</p>`;

function postPage(account: Account, post: Publish): string {
  const request = (post.request ?? {}) as Obj;
  const info = (request.post_info ?? {}) as Obj;
  const source = (request.source_info ?? {}) as Obj;
  const title = text(info.title);
  const description = text(info.description);
  const caption = post.kind === 'photo' ? description : title;
  const videoUrl = post.media[0]?.url;
  const media =
    post.kind === 'photo'
      ? `<div class="slides">${urls(source.photo_images)
          .map((url, i) => `<img src="${escapeHtml(url)}" alt="Photo ${i + 1}">`)
          .join('')}</div>`
      : videoUrl
        ? `<video controls src="${escapeHtml(videoUrl)}"></video>`
        : `<p>A video uploaded from a file (${post.uploadedBytes.toLocaleString('en-US')} bytes).</p>`;
  return page(
    `TikTok emulator: @${account.username}`,
    `${NOTE}<h1>${escapeHtml(account.displayName)} <small>@${escapeHtml(account.username)}</small></h1>
${post.kind === 'photo' && title ? `<h2>${escapeHtml(title)}</h2>` : ''}
<p class="caption">${caption ? escapeHtml(caption) : '<i>No caption</i>'}</p>
${media}
<dl><dt>Post</dt><dd>${escapeHtml(post.postIds.join(', '))} (${post.kind})</dd>
<dt>Who can see it</dt><dd>${escapeHtml(post.effectivePrivacyLevel ?? 'not set')}</dd>
<dt>Published</dt><dd>${post.settledAt === null ? '' : escapeHtml(new Date(post.settledAt).toISOString())}</dd></dl>
<p><a href="/@${encodeURIComponent(account.username)}">All posts of @${escapeHtml(account.username)}</a></p>`,
  );
}

function profilePage(account: Account, published: Publish[]): string {
  const items = published.map((p) => {
    const info = ((p.request ?? {}) as Obj).post_info as Obj | undefined;
    const words = text(info?.title) || text(info?.description) || 'No caption';
    const id = p.postIds[0];
    const label = `${p.kind === 'photo' ? 'Photos' : 'Video'}: ${words}`;
    return id
      ? `<li><a href="/@${encodeURIComponent(account.username)}/${p.kind}/${id}">${escapeHtml(label)}</a></li>`
      : `<li>${escapeHtml(label)} <small>(${escapeHtml(p.effectivePrivacyLevel ?? '')}: no public link)</small></li>`;
  });
  return page(
    `TikTok emulator: @${account.username}`,
    `${NOTE}<h1>${escapeHtml(account.displayName)} <small>@${escapeHtml(account.username)}</small></h1>
${items.length > 0 ? `<ul class="posts">${items.join('')}</ul>` : '<p>No posts yet.</p>'}`,
  );
}

/** The account's published posts, newest first. */
function publishedBy(state: EmulatorState, engine: PublishEngine, account: Account): Publish[] {
  const own = [...state.publishes.values()].filter((p) => p.openId === account.openId);
  // Statuses move on when looked at, as the control API's list does.
  for (const p of own) engine.advance(p, false);
  return own.filter((p) => p.status === 'PUBLISH_COMPLETE').sort((a, b) => (b.settledAt ?? 0) - (a.settledAt ?? 0));
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function urls(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((u): u is string => typeof u === 'string') : [];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
