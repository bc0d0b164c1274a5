import type Router from '@koa/router';
import type { Context } from 'koa';
import { authenticate, injectedFailure, requireScope, SlidingWindow, type Caller } from './auth.js';
import type { PublishEngine } from './engine.js';
import { apiError, logId, readText } from './envelope.js';
import type { EmulatorOptions } from './options.js';
import type { Publish } from './publish-model.js';
import type { EmulatorState } from './state.js';

const EITHER_SCOPE = ['video.upload', 'video.publish'];

/**
 * `POST /v2/post/publish/status/fetch/` and `POST /v2/post/publish/cancel/` (contract 4.6, 4.7). Status answers
 * post ids as bare 19-digit JSON numbers, as production does, so the body is written by hand (JSON.stringify
 * cannot write an integer above 2^53).
 */
export function registerStatus(
  router: Router,
  state: EmulatorState,
  engine: PublishEngine,
  options: EmulatorOptions,
): void {
  const limiter = new SlidingWindow();

  router.post('/v2/post/publish/status/fetch/', async (ctx) => {
    const caller = authenticate(ctx, state);
    if (!caller || !requireScope(ctx, caller, EITHER_SCOPE)) return;
    if (injectedFailure(ctx, state, caller.account.openId, 'status')) return;
    if (!limiter.admit(ctx, caller.grant, 'status', options.rateLimits.status)) return;
    const publish = await ownPublish(ctx, state, caller, options);
    if (!publish) return;
    engine.advance(publish, true);
    const data: Record<string, unknown> = { status: publish.status };
    if (publish.status === 'FAILED') data.fail_reason = publish.failReason;
    data.publicaly_available_post_id = '\u0000IDS\u0000';
    if (publish.source === 'FILE_UPLOAD') data.uploaded_bytes = publish.uploadedBytes;
    else data.downloaded_bytes = publish.downloadedBytes;
    const text = JSON.stringify({ data, error: { code: 'ok', message: '', log_id: logId() } });
    ctx.status = 200;
    ctx.type = 'application/json';
    // The ids are digit strings made here, so splicing them in unquoted is safe.
    ctx.body = text.replace('"\\u0000IDS\\u0000"', `[${publish.postIds.join(',')}]`);
  });

  router.post('/v2/post/publish/cancel/', async (ctx) => {
    const caller = authenticate(ctx, state);
    if (!caller || !requireScope(ctx, caller, EITHER_SCOPE)) return;
    if (injectedFailure(ctx, state, caller.account.openId, 'cancel')) return;
    const publish = await ownPublish(ctx, state, caller, options);
    if (!publish) return;
    engine.advance(publish, false);
    // Only a running download can be cancelled (contract 4.7).
    if (publish.status !== 'PROCESSING_DOWNLOAD') {
      return apiError(ctx, 400, 'publish_not_cancellable', 'The publish is not downloading and cannot be cancelled.');
    }
    state.settle(publish, 'FAILED', 'publish_cancelled');
    ctx.status = 200;
    ctx.body = { error: { code: 'ok', message: '', log_id: logId() } };
  });
}

// The caller's publish named in the body, or undefined after answering 400.
async function ownPublish(
  ctx: Context,
  state: EmulatorState,
  caller: Caller,
  options: EmulatorOptions,
): Promise<Publish | undefined> {
  let publishId: unknown;
  try {
    publishId = (JSON.parse((await readText(ctx)) || '{}') as { publish_id?: unknown }).publish_id;
  } catch {
    publishId = undefined;
  }
  if (typeof publishId !== 'string' || publishId === '') {
    apiError(ctx, 400, options.invalidParamsCode, 'publish_id is required.');
    return undefined;
  }
  const publish = state.publishes.get(publishId);
  if (!publish) {
    apiError(ctx, 400, 'invalid_publish_id', 'The publish_id does not exist.');
    return undefined;
  }
  if (publish.openId !== caller.account.openId) {
    apiError(ctx, 400, 'token_not_authorized_for_specified_publish_id', 'The publish_id belongs to another user.');
    return undefined;
  }
  return publish;
}
