import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import type { PublishState } from '../../port.js';
import { withTikTokToken } from '../connect/token-access.js';
import { tiktokHttpOf } from '../http-of.js';
import { fetchPublishStatus, type TikTokPublishState } from '../status.js';
import { failReasonText } from './error-texts.js';

/** Where a TikTok publish stands (status/fetch, contract 4.6), in the terms the publishing engine follows. */
export async function readTikTokPublishState(
  deps: CoreDeps,
  platform: PlatformDoc,
  publishId: string,
): Promise<PublishState> {
  const state = await withTikTokToken(deps, platform, (token) =>
    fetchPublishStatus(tiktokHttpOf(deps), token, publishId),
  );
  return toPublishState(state);
}

function toPublishState(state: TikTokPublishState): PublishState {
  const outcome = state.status === 'PUBLISH_COMPLETE' ? 'published' : state.status === 'FAILED' ? 'failed' : 'pending';
  return {
    status: state.status,
    outcome,
    releaseIds: state.postIds,
    failure:
      outcome === 'failed'
        ? {
            reason: state.failReason,
            retryable: isPullFailure(state.failReason),
            text: failReasonText(state.failReason),
          }
        : null,
    awaitingUploadBytes: state.status === 'PROCESSING_UPLOAD' ? (state.uploadedBytes ?? 0) : null,
    description: describeState(state),
  };
}

/** TikTok could not download the media (a connection error on our side of the pull): it created nothing. */
function isPullFailure(failReason: string | null | undefined): boolean {
  return failReason === 'photo_pull_failed' || failReason === 'video_pull_failed';
}

function describeState(state: TikTokPublishState): string {
  const parts = [state.status];
  if (state.failReason) parts.push(`fail_reason ${state.failReason}`);
  if (state.status === 'PUBLISH_COMPLETE') parts.push(`post ids [${state.postIds.join(', ')}]`);
  return parts.join(', ');
}
