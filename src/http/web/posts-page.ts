import type { Router } from '@koa/router';
import type { CoreDeps, Scope } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { invokeOperation } from '../../core/operations/invoke.js';
import { requireMedia } from '../../core/media/manage-media.js';
import type { MediaDoc } from '../../core/media/documents.js';
import { publicUrlOf } from '../../core/media/view.js';
import { listAllPlatforms, type PlatformOverview } from '../../core/platforms/list-platforms.js';
import {
  deletePostOperation,
  listPostsOperation,
  publishPostOperation,
  reschedulePostOperation,
} from '../../core/posts/operations.js';
import type { AppContext, AppState } from '../shared/context.js';
import { STATUS_BY_CODE } from '../shared/error-status.js';
import { redirect } from './auth-pages.js';
import { sendPage } from './layout.js';
import type { WebOptions } from './options.js';
import { readCheckedForm, signedInPage, type SignedInPage } from './page-context.js';
import { calendarHref, calendarOf, type Calendar } from './posts-calendar.js';
import { postsView, type CalendarPost, type PostsView } from './posts-view.js';
import { IdParamSchema, WorkspaceFormSchema } from './schema.js';
import { workspaceParam } from './workspace.js';

/** Confirmations a redirect may ask for: fixed texts, so nothing from the URL is echoed. */
const NOTICES: Partial<Record<string, string>> = {
  published: 'The draft is queued and will be published in a moment.',
  scheduled: 'The draft is scheduled: it will be published at the time you set.',
  rescheduled: 'The post was moved to the new time.',
  deleted: 'The post was deleted.',
};

/** A datetime-local value (the browser sends no zone; the page says it is UTC). */
const LOCAL_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(?:\.\d{1,3})?)?$/;

type Action = (page: SignedInPage, postId: string, form: Record<string, string>) => Promise<string>;

/**
 * The workspace's calendar of posts (`/posts?view=week|day&date=YYYY-MM-DD`, UTC) with each post's
 * state, and the actions on a post: publish a draft now, schedule it, move it or a queued post to
 * another time, delete it. Any member may act. A failed action shows core's message on the page.
 */
export function registerPostsPages(router: Router<AppState>, options: WebOptions): void {
  const { deps } = options;

  router.get('/posts', async (ctx) => {
    const calendar = calendarOf(ctx.query.view, ctx.query.date, deps.now());
    const page = await signedInPage(ctx, options, 'posts', workspaceParam(ctx), {
      view: calendar.mode,
      date: calendar.date,
    });
    const key = typeof ctx.query.notice === 'string' ? ctx.query.notice : '';
    await render(ctx, options, page, calendar, { done: NOTICES[key] });
  });

  const action = (path: string, run: Action): void => {
    router.post(path, async (ctx) => {
      const form = await readCheckedForm(ctx, options);
      const postId = IdParamSchema.safeParse(ctx.params.id);
      const workspace = WorkspaceFormSchema.safeParse(form);
      if (!postId.success || !workspace.success) throw notFound('Post');
      const page = await signedInPage(ctx, options, 'posts', workspace.data.workspaceId);
      const calendar = calendarOf(form.view, form.date, deps.now());
      try {
        const notice = await run(page, postId.data, form);
        redirect(ctx, calendarHref(page.workspace.workspaceId, calendar.mode, calendar.date, notice));
      } catch (error) {
        // Another workspace's post stays a plain 404 page; anything a person can fix shows above the calendar.
        if (!(error instanceof AppError) || error.code === 'not_found' || error.code === 'forbidden') throw error;
        const problem = { message: error.message, details: (error.details ?? []).map((d) => d.message) };
        await render(ctx, options, page, calendar, { problem }, STATUS_BY_CODE[error.code]);
      }
    });
  };

  action('/posts/:id/publish', async (page, postId) => {
    await invokeOperation(deps, page.scope, publishPostOperation, { id: postId, mode: 'now' });
    return 'published';
  });

  action('/posts/:id/schedule', async (page, postId, form) => {
    await invokeOperation(deps, page.scope, publishPostOperation, {
      id: postId,
      mode: 'schedule',
      scheduledFor: utcTime(form.scheduledFor, deps.now()),
    });
    return 'scheduled';
  });

  action('/posts/:id/reschedule', async (page, postId, form) => {
    await invokeOperation(deps, page.scope, reschedulePostOperation, {
      id: postId,
      scheduledFor: utcTime(form.scheduledFor, deps.now()),
    });
    return 'rescheduled';
  });

  action('/posts/:id/delete', async (page, postId, form) => {
    if (form.confirm !== 'yes') {
      throw new AppError('invalid_request', 'Tick “Yes, delete” next to the Delete button to delete the post.', [
        { path: ['confirm'], message: 'Tick “Yes, delete” to confirm.' },
      ]);
    }
    await invokeOperation(deps, page.scope, deletePostOperation, { id: postId });
    return 'deleted';
  });
}

async function render(
  ctx: AppContext,
  options: WebOptions,
  page: SignedInPage,
  calendar: Calendar,
  outcome: Pick<PostsView, 'done'> | Pick<PostsView, 'problem'>,
  status = 200,
): Promise<void> {
  const { deps } = options;
  const { posts } = await invokeOperation(deps, page.scope, listPostsOperation, {
    startDate: calendar.start.toISOString(),
    endDate: calendar.end.toISOString(),
  });
  const accounts = new Map((await listAllPlatforms(deps, page.scope)).map((a) => [a.platform.id, a]));
  const items: CalendarPost[] = await Promise.all(
    posts.map(async (post) => ({
      post,
      ...accountNames(accounts.get(post.integrationId)),
      network: networkOf(deps, accounts.get(post.integrationId)),
      ...(await describeMedia(deps, page.scope, post.mediaIds)),
    })),
  );
  sendPage(ctx, {
    title: 'Posts',
    chrome: page.chrome,
    status,
    main: postsView({
      csrf: page.csrf,
      workspaceId: page.workspace.workspaceId,
      workspaceName: page.workspace.name,
      calendar,
      now: deps.now().toISOString().slice(11, 16),
      posts: items,
      done: 'done' in outcome ? outcome.done : undefined,
      problem: 'problem' in outcome ? outcome.problem : undefined,
    }),
  });
}

/**
 * The ISO time of a datetime-local value, read as UTC. A missing, malformed or past one is a 400
 * on the page, worded for the form (core refuses a past time too, in the API's words).
 */
function utcTime(value: string | undefined, now: Date): string {
  const match = LOCAL_TIME.exec(value ?? '');
  const minute = match ? `${match[1]}T${match[2]}` : '';
  const at = match ? new Date(`${minute}${match[3] ?? ':00'}Z`) : null;
  // Date rolls 2031-02-30 over into March; only a round trip proves the day and time exist.
  if (!at || Number.isNaN(at.getTime()) || at.toISOString().slice(0, 16) !== minute) {
    const message = 'Enter the date and time (UTC) to publish at.';
    throw new AppError('invalid_request', message, [{ path: ['scheduledFor'], message }]);
  }
  if (at.getTime() <= now.getTime()) {
    const message = `Choose a time in the future: it is now ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
    throw new AppError('invalid_request', message, [{ path: ['scheduledFor'], message }]);
  }
  return at.toISOString();
}

/** The account's network as a post card names it; null when the account is gone. */
function networkOf(deps: CoreDeps, account: PlatformOverview | undefined): CalendarPost['network'] {
  if (!account) return null;
  const provider = deps.providers.of(account.platform);
  return {
    name: provider.name,
    releaseLabel: provider.publishing.releaseLinkLabel(),
    emulated: provider.connect.emulated,
  };
}

function accountNames(account: PlatformOverview | undefined): { account: string; shortAccount: string } {
  if (!account) return { account: 'An account no longer connected here', shortAccount: 'Account gone' };
  const { displayName, displayHandle } = account.platform;
  const name = displayName ?? 'Unnamed account';
  const off = account.state === 'disconnected' ? ' — disconnected' : '';
  return {
    account: `${name}${displayHandle ? ` (@${displayHandle})` : ''}${off}`,
    shortAccount: `${displayHandle ? `@${displayHandle}` : name}${off}`,
  };
}

// A TikTok post is one video or 1–35 images, never mixed, so the first item tells the kind.
async function describeMedia(
  deps: CoreDeps,
  scope: Scope,
  mediaIds: readonly string[],
): Promise<Pick<CalendarPost, 'media' | 'thumbnail'>> {
  const [first] = mediaIds;
  const count = mediaIds.length;
  if (first === undefined) return { media: 'No media', thumbnail: null };
  const doc = await requireMedia(deps, scope, first).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') return null;
    throw error;
  });
  const kind = doc?.mediaType ?? null;
  const noun = kind === 'video' ? 'video' : kind === 'image' ? 'image' : 'media file';
  return {
    media: `${count} ${noun}${count === 1 ? '' : 's'}${kind === null ? ' (no longer in the media library)' : ''}`,
    // The server's own path (not PUBLIC_BASE_URL), so the page's img-src 'self' allows it.
    thumbnail: doc ? { src: `${publicUrlOf(doc, '')}/preview`, ...previewShape(doc) } : null,
  };
}

/** The preview's proportions: the media's own, or the square placeholder served for a video without one. */
export function previewShape(doc: MediaDoc): { width: number; height: number } {
  const { width, height } = doc.thumbnailMetadata ?? {};
  if (doc.preview === null || typeof width !== 'number' || typeof height !== 'number' || width <= 0 || height <= 0) {
    return { width: 1, height: 1 };
  }
  return { width, height };
}
