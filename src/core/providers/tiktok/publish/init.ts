import type { CoreDeps } from '../../../context.js';
import { publishingSettings } from '../../../publishing/settings.js';
import type { PublishInit } from '../../port.js';
import { planChunks } from '../chunk-plan.js';
import { withTikTokToken } from '../connect/token-access.js';
import { tiktokHttpOf } from '../http-of.js';
import { initPhotoPost, initVideoPost } from '../publish.js';
import { uploadVideo } from '../upload.js';
import { photoUrlsForTikTok, videoSourceFor } from './media-sources.js';
import { photoPostOf, uploadMimeTypeOf, videoPostInfoOf } from './request.js';

/**
 * Sends TikTok's init (refreshing the token once on a 401): photos as DIRECT_POST PULL_FROM_URL from their
 * public URLs, a video as FILE_UPLOAD, whose chunk upload is returned as the next step. `markSent` runs right
 * before the request leaves.
 */
export async function initTikTokPublish(
  deps: CoreDeps,
  request: PublishInit,
): Promise<{ publishId: string; upload?: () => Promise<void> }> {
  const { post, platform } = request;
  const markSent = (detail: string) => request.markSent(detail);
  const http = tiktokHttpOf(deps);
  if (request.kind === 'photo') {
    const photo = photoPostOf(post.content, post.settings, await photoUrlsForTikTok(deps, request.media));
    return await withTikTokToken(deps, platform, async (token) => {
      await markSent(`photo DIRECT_POST PULL_FROM_URL, ${photo.photoImages.length} images`);
      return initPhotoPost(http, token, photo);
    });
  }
  const video = request.media[0]!;
  const source = videoSourceFor(deps, video);
  const mimeType = uploadMimeTypeOf(video);
  const postInfo = videoPostInfoOf(post.content, post.settings);
  const plan = planChunks(source.size, publishingSettings.uploadChunkBytes);
  const answer = await withTikTokToken(deps, platform, async (token) => {
    await markSent(`video DIRECT_POST FILE_UPLOAD, ${plan.videoSize} bytes in ${plan.totalChunkCount} chunks`);
    return initVideoPost(http, token, {
      postInfo,
      source: { source: 'FILE_UPLOAD', videoSize: source.size, chunkSize: publishingSettings.uploadChunkBytes },
    });
  });
  const uploadUrl = answer.uploadUrl!;
  const sent = answer.plan ?? plan;
  return {
    publishId: answer.publishId,
    upload: () => uploadVideo(uploadUrl, { plan: sent, mimeType, open: (start, end) => source.open(start, end) }),
  };
}
