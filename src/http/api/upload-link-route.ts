import { Router } from '@koa/router';
import type { CoreDeps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { UPLOAD_LINK_PATH, uploadThroughLink } from '../../core/media/upload-links.js';
import type { AppState } from '../shared/context.js';

/**
 * `PUT /public/v1/uploads/{secret}`: the raw body becomes one media object, as the link's maker.
 * The link is the credential (no Authorization header), so a shell can `curl -T` a file to it.
 */
export function createUploadLinkRouter(deps: CoreDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.put(`${UPLOAD_LINK_PATH}/:secret`, async (ctx) => {
    const request = ctx.req;
    // A client that goes away mid-upload must fail the store's write, not leave it waiting; what
    // it broke off is its own doing, answered (to nobody) and logged as a multipart upload's is.
    let interrupted = false;
    const abort = (): void => {
      if (request.complete) return;
      interrupted = true;
      request.destroy(new Error('The upload was interrupted'));
    };
    request.once('close', abort);
    if (request.destroyed) abort();
    ctx.status = 201;
    try {
      ctx.body = await uploadThroughLink(deps, ctx.params.secret ?? '', request);
    } catch (error) {
      throw interrupted ? new AppError('invalid_request', 'The upload was interrupted') : error;
    }
  });
  return router;
}
