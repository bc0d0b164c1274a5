import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { authenticate, injectedFailure, requireScope, SlidingWindow, type Caller } from './auth.js';
import { nineteenDigits, type PublishEngine } from './engine.js';
import { apiError, apiOk, readText } from './envelope.js';
import type { EmulatorOptions, RateLimits } from './options.js';
import type { Publish } from './publish-model.js';
import { startPull } from './pull.js';
import { isPublicAccount, pendingShares, postingBlock } from './quotas.js';
import type { EmulatorState, Failure } from './state.js';
import {
  checkPhotoSource,
  checkPostInfoTypes,
  checkPrivacy,
  checkPullUrl,
  checkVideoSource,
  invalid,
  isObject,
  isRefusal,
  type Refusal,
  type VideoSource,
} from './validate-init.js';

type InitEndpoint = Extract<Failure['endpoint'], 'video_init' | 'inbox_init' | 'content_init'>;
const LIMIT_KEYS: Record<InitEndpoint, keyof RateLimits> = {
  video_init: 'videoInit',
  inbox_init: 'inboxInit',
  content_init: 'contentInit',
};

/**
 * The three init endpoints (contract 4.2, 4.4, 4.5): bearer auth, scope, injected failures, the per-token rate
 * limit, then the synchronous validation of contract 7 in this order: shape (400), privacy_level (403), pull URL
 * ownership (403), account and app policy (403, photo drafts' app version 400), then the publish is created.
 */
export function registerPublish(
  router: Router,
  state: EmulatorState,
  engine: PublishEngine,
  options: EmulatorOptions,
): void {
  const limiter = new SlidingWindow();

  // Auth, body, scope, injected failure and rate limit; the caller and body, or undefined once answered.
  async function begin(
    ctx: Context,
    endpoint: InitEndpoint,
    scopeFor: (body: Record<string, unknown>) => string,
  ): Promise<{ caller: Caller; body: Record<string, unknown> } | undefined> {
    const caller = authenticate(ctx, state);
    if (!caller) return undefined;
    state.countInit(caller.account.openId);
    state.save();
    let body: unknown;
    try {
      const text = await readText(ctx);
      body = text ? JSON.parse(text) : {};
    } catch {
      body = undefined;
    }
    if (!isObject(body)) {
      refuse(ctx, invalid(options, 'The request body must be a JSON object.'));
      return undefined;
    }
    if (!requireScope(ctx, caller, [scopeFor(body)])) return undefined;
    if (injectedFailure(ctx, state, caller.account.openId, endpoint)) return undefined;
    if (!limiter.admit(ctx, caller.grant, endpoint, options.rateLimits[LIMIT_KEYS[endpoint]])) return undefined;
    return { caller, body };
  }

  // Ban, unaudited app on a public account, active-user cap and daily cap, for Direct Post.
  function directPolicy(caller: Caller): Refusal | null {
    const account = caller.account;
    if (!account.banned && !options.audited && isPublicAccount(account.privacyLevelOptions)) {
      return {
        status: 403,
        code: 'unaudited_client_can_only_post_to_private_accounts',
        message: 'Unaudited clients can only post to private accounts.',
      };
    }
    const block = postingBlock(state, options, account.openId);
    return block && { status: 403, code: block, message: 'The creator cannot post right now.' };
  }

  // Ban and the pending-share cap, for the inbox (draft) flows.
  function inboxPolicy(caller: Caller): Refusal | null {
    if (caller.account.banned) {
      return { status: 403, code: 'spam_risk_user_banned_from_posting', message: 'The user is banned from posting.' };
    }
    if (pendingShares(state, caller.account.openId) >= options.pendingShareCap) {
      return {
        status: 403,
        code: 'spam_risk_too_many_pending_share',
        message: 'The user has too many pending inbox shares.',
      };
    }
    return null;
  }

  router.post('/v2/post/publish/video/init/', async (ctx) => {
    const started = await begin(ctx, 'video_init', () => 'video.publish');
    if (!started) return;
    const { caller, body } = started;
    const info = body.post_info;
    if (!isObject(info)) return refuse(ctx, invalid(options, 'The request post info is empty or incorrect.'));
    const source = checkVideoSource(options, body.source_info);
    const refusal =
      checkPostInfoTypes(options, info, 2200) ??
      (isRefusal(source) ? source : null) ??
      checkPrivacy(info, caller.account.privacyLevelOptions) ??
      pullRefusal(source) ??
      directPolicy(caller);
    if (refusal || isRefusal(source)) return refuse(ctx, refusal ?? (source as Refusal));
    const privacy = info.privacy_level as string;
    const publish = create(ctx, caller, body, {
      endpoint: 'video_init',
      kind: 'video',
      mode: 'DIRECT_POST',
      source,
      privacyLevel: privacy,
      prefix: source.source === 'FILE_UPLOAD' ? 'v_pub_file~v2-1.' : 'v_pub_url~v2.',
    });
    answer(ctx, publish);
  });

  router.post('/v2/post/publish/inbox/video/init/', async (ctx) => {
    const started = await begin(ctx, 'inbox_init', () => 'video.upload');
    if (!started) return;
    const { caller, body } = started;
    const source = checkVideoSource(options, body.source_info);
    if (isRefusal(source)) return refuse(ctx, source);
    const refusal = pullRefusal(source) ?? inboxPolicy(caller);
    if (refusal) return refuse(ctx, refusal);
    const publish = create(ctx, caller, body, {
      endpoint: 'inbox_init',
      kind: 'video',
      mode: 'MEDIA_UPLOAD',
      source,
      privacyLevel: null,
      prefix: source.source === 'FILE_UPLOAD' ? 'v_inbox_file~v2.' : 'v_inbox_url~v2.',
    });
    answer(ctx, publish);
  });

  router.post('/v2/post/publish/content/init/', async (ctx) => {
    const started = await begin(ctx, 'content_init', (b) =>
      b.post_mode === 'MEDIA_UPLOAD' ? 'video.upload' : 'video.publish',
    );
    if (!started) return;
    const { caller, body } = started;
    if (body.media_type !== 'PHOTO') return refuse(ctx, invalid(options, 'media_type must be PHOTO.'));
    const mode = body.post_mode;
    if (mode !== 'DIRECT_POST' && mode !== 'MEDIA_UPLOAD') {
      return refuse(ctx, invalid(options, 'post_mode must be DIRECT_POST or MEDIA_UPLOAD.'));
    }
    const info = body.post_info ?? {};
    if (!isObject(info)) return refuse(ctx, invalid(options, 'post_info must be an object.'));
    const photos = checkPhotoSource(options, body.source_info);
    const direct = mode === 'DIRECT_POST';
    const refusal =
      checkPostInfoTypes(options, info, 90) ??
      (isRefusal(photos) ? photos : null) ??
      (direct ? checkPrivacy(info, caller.account.privacyLevelOptions) : null) ??
      (isRefusal(photos) ? null : photos.urls.map((u) => checkPullUrl(options, u)).find(Boolean)) ??
      (direct ? directPolicy(caller) : inboxPolicy(caller)) ??
      (!direct && caller.account.appVersionOutdated
        ? { status: 400, code: 'app_version_check_failed', message: "The user's TikTok app is older than 31.8." }
        : null);
    if (refusal || isRefusal(photos)) return refuse(ctx, refusal ?? (photos as Refusal));
    const publish = create(ctx, caller, body, {
      endpoint: 'content_init',
      kind: 'photo',
      mode,
      source: { source: 'PULL_FROM_URL', url: '' },
      photoUrls: photos.urls,
      privacyLevel: direct ? (info.privacy_level as string) : null,
      prefix: direct ? 'p_pub_url~v2.' : 'p_inbox_url~v2.',
    });
    answer(ctx, publish);
  });

  function pullRefusal(source: VideoSource | Refusal): Refusal | null {
    return !isRefusal(source) && source.source === 'PULL_FROM_URL' ? checkPullUrl(options, source.url) : null;
  }

  function create(
    ctx: Context,
    caller: Caller,
    body: Record<string, unknown>,
    spec: {
      endpoint: Publish['endpoint'];
      kind: Publish['kind'];
      mode: Publish['mode'];
      source: VideoSource;
      photoUrls?: string[];
      privacyLevel: string | null;
      prefix: string;
    },
  ): Publish {
    const account = caller.account;
    let publishId: string;
    do publishId = `${spec.prefix}${nineteenDigits()}`;
    while (state.publishes.has(publishId));
    const now = Date.now();
    const urls = spec.photoUrls ?? (spec.source.source === 'PULL_FROM_URL' ? [spec.source.url] : [null]);
    const publish: Publish = {
      publishId,
      openId: account.openId,
      grantId: caller.grant.id,
      endpoint: spec.endpoint,
      kind: spec.kind,
      mode: spec.mode,
      source: spec.source.source,
      request: body,
      privacyLevel: spec.privacyLevel,
      // An unaudited app's posts are visible to the creator only (contract 3).
      effectivePrivacyLevel: spec.privacyLevel && !options.audited ? 'SELF_ONLY' : spec.privacyLevel,
      status: spec.source.source === 'FILE_UPLOAD' ? 'PROCESSING_UPLOAD' : 'PROCESSING_DOWNLOAD',
      failReason: null,
      outcome: null,
      holdPollsLeft: 0,
      holdUntil: 0,
      postIds: [],
      idsPending: 0,
      moderationPollsLeft: 0,
      uploadedBytes: 0,
      downloadedBytes: 0,
      media: urls.map((url) => ({ url, bytes: 0, sha256: null, format: null })),
      upload:
        spec.source.source === 'FILE_UPLOAD'
          ? {
              uploadId: nineteenDigits(),
              uploadToken: randomBytes(24).toString('base64url'),
              videoSize: spec.source.videoSize,
              chunkSize: spec.source.chunkSize,
              totalChunkCount: spec.source.totalChunkCount,
              expiresAt: now + options.uploadUrlTtlSec * 1000,
              chunksReceived: 0,
            }
          : null,
      directive: account.nextPublish ?? {},
      initReceivedAt: (ctx.state as { receivedAt?: number }).receivedAt ?? now,
      createdAt: now,
      settledAt: null,
    };
    account.nextPublish = null;
    state.publishes.set(publishId, publish);
    state.save();
    if (publish.source === 'PULL_FROM_URL') startPull(state, engine, options, publish);
    return publish;
  }

  function answer(ctx: Context, publish: Publish): void {
    const upload = publish.upload;
    apiOk(
      ctx,
      upload
        ? {
            publish_id: publish.publishId,
            // Served by this same server, at the address the client reached it by.
            upload_url: `${ctx.protocol}://${ctx.host}/video/?upload_id=${upload.uploadId}&upload_token=${upload.uploadToken}`,
          }
        : { publish_id: publish.publishId },
    );
  }
}

function refuse(ctx: Context, refusal: Refusal): void {
  apiError(ctx, refusal.status, refusal.code, refusal.message);
}
