import type Router from '@koa/router';
import { z } from 'zod';
import { parseBody, problem } from './control.js';
import type { PublishEngine } from './engine.js';
import { FAIL_REASONS, isTerminal, type Publish } from './publish-model.js';
import type { EmulatorState } from './state.js';

const UserPostsSchema = z.object({
  privacyLevel: z.string().default('PUBLIC_TO_EVERYONE'),
  postCount: z.number().int().min(1).max(35).default(1),
});
const FailSchema = z.object({ failReason: z.enum(FAIL_REASONS) });

/** How the control API shows a publish: what was asked for, what arrived, where it stands (ids as strings). */
export function postView(p: Publish): Record<string, unknown> {
  return {
    publishId: p.publishId,
    openId: p.openId,
    endpoint: p.endpoint,
    kind: p.kind,
    mode: p.mode,
    source: p.source,
    postInfo: (p.request as { post_info?: unknown }).post_info ?? null,
    request: p.request,
    privacyLevel: p.privacyLevel,
    effectivePrivacyLevel: p.effectivePrivacyLevel,
    media: p.media,
    status: p.status,
    failReason: p.failReason,
    postIds: p.postIds,
    moderation: p.idsPending > 0 ? 'pending' : p.postIds.length > 0 ? 'passed' : null,
    uploadedBytes: p.uploadedBytes,
    downloadedBytes: p.downloadedBytes,
    upload: p.upload && {
      videoSize: p.upload.videoSize,
      chunkSize: p.upload.chunkSize,
      totalChunkCount: p.upload.totalChunkCount,
      chunksReceived: p.upload.chunksReceived,
      expiresAt: new Date(p.upload.expiresAt).toISOString(),
    },
    directive: p.directive,
    initReceivedAt: new Date(p.initReceivedAt).toISOString(),
    initReceivedAtMs: p.initReceivedAt,
    createdAt: new Date(p.createdAt).toISOString(),
    settledAt: p.settledAt === null ? null : new Date(p.settledAt).toISOString(),
  };
}

/**
 * The control API's view of what was posted (under `/__control/posts`): the list (optionally one user's) with
 * init request counts, one publish, and the hooks "the user posts the draft in the app" and "fail it now".
 */
export function registerControlPosts(router: Router, state: EmulatorState, engine: PublishEngine): void {
  router.get('/__control/posts', (ctx) => {
    const openId = new URLSearchParams(ctx.querystring).get('openId');
    const posts = [...state.publishes.values()].filter((p) => !openId || p.openId === openId);
    for (const p of posts) engine.advance(p, false);
    const counts = [...state.initRequests].filter(([id]) => !openId || id === openId);
    ctx.body = {
      posts: posts.map(postView),
      initRequests: Object.fromEntries(openId ? [[openId, 0], ...counts] : counts),
    };
  });

  router.get('/__control/posts/:publishId', (ctx) => {
    const publish = state.publishes.get(ctx.params.publishId ?? '');
    if (!publish) return problem(ctx, 404, 'no such publish');
    engine.advance(publish, false);
    ctx.body = postView(publish);
  });

  router.post('/__control/posts/:publishId/user-posts', async (ctx) => {
    const publish = state.publishes.get(ctx.params.publishId ?? '');
    if (!publish) return problem(ctx, 404, 'no such publish');
    const input = await parseBody(ctx, UserPostsSchema);
    if (!input) return;
    engine.advance(publish, false);
    if (publish.status !== 'SEND_TO_USER_INBOX') {
      return problem(ctx, 409, `the publish is ${publish.status}, not SEND_TO_USER_INBOX`);
    }
    engine.userPosts(publish, input.privacyLevel, input.postCount);
    ctx.body = postView(publish);
  });

  router.post('/__control/posts/:publishId/fail', async (ctx) => {
    const publish = state.publishes.get(ctx.params.publishId ?? '');
    if (!publish) return problem(ctx, 404, 'no such publish');
    const input = await parseBody(ctx, FailSchema);
    if (!input) return;
    if (isTerminal(publish)) return problem(ctx, 409, `the publish is already ${publish.status}`);
    state.settle(publish, 'FAILED', input.failReason);
    ctx.body = postView(publish);
  });
}
