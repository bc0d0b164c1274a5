import type Router from '@koa/router';
import type { Context } from 'koa';
import { statusOf } from './container-status.js';
import { fetchVideo } from './media-fetch.js';
import type { InstagramEmulatorOptions } from './options.js';
import type { InstagramState } from './state.js';
import { checkVideoStream, settleVideo } from './video-check.js';

/** rupload's failure body (contract 2.6): a `debug_info` object whose message is itself JSON text. */
function uploadFailure(ctx: Context, status: number, message: string): void {
  ctx.status = status;
  ctx.body = {
    debug_info: {
      retriable: false,
      type: 'ProcessingFailedError',
      message: JSON.stringify({ success: false, error: { message } }),
    },
  };
}

/**
 * `POST /ig-api-upload/{version}/{container-id}` (rupload.facebook.com, contract 2.6): the video of a container
 * made with `upload_type=resumable`, sent whole as the body (`offset: 0`, `file_size`) or named by a `file_url`
 * header, with `Authorization: OAuth <token>`. The bytes get the same checks as a fetched video_url.
 */
export function registerRupload(router: Router, state: InstagramState, options: InstagramEmulatorOptions): void {
  router.post('/ig-api-upload/:version/:containerId', async (ctx) => {
    const token = /^OAuth\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    const grant = token ? state.grantOf(token) : undefined;
    const container = state.containers.get(ctx.params.containerId ?? '');
    if (!grant || grant.revoked || grant.expiresAt <= state.now() || container?.accountId !== grant.accountId) {
      return uploadFailure(ctx, 400, 'unauthorized user request');
    }
    if (container.params.upload_type !== 'resumable' || container.fetched || container.errorSubcode !== null) {
      return uploadFailure(ctx, 400, 'this container does not wait for an upload');
    }
    if (statusOf(state, options, container).code === 'EXPIRED') return uploadFailure(ctx, 400, 'the container expired');
    const fileUrl = ctx.get('file_url');
    if (fileUrl) {
      settleVideo(container, await fetchVideo(fileUrl, options), state.now(), options);
    } else {
      const offset = ctx.get('offset');
      const fileSize = Number(ctx.get('file_size'));
      // The emulator takes a video in one request; resuming at another offset is not emulated.
      if (offset !== '0') return uploadFailure(ctx, 400, 'offset must be 0');
      if (!Number.isInteger(fileSize) || fileSize <= 0) return uploadFailure(ctx, 400, 'file_size is required');
      const result = await checkVideoStream(ctx.req, options);
      // A refusal stops reading early; the rest of the body is drained so the answer reaches the client.
      ctx.req.resume();
      if ('kind' in result && result.bytes !== fileSize) {
        return uploadFailure(ctx, 400, `file_size ${fileSize} does not match the ${result.bytes} bytes received`);
      }
      settleVideo(container, result, state.now(), options);
    }
    ctx.body = { success: true, message: 'Upload successful.' };
  });
}
