import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import type { PublishState } from '../../port.js';
import { withInstagramToken } from '../connect/token-access.js';
import { GraphError, type InstagramHttp } from '../graph.js';
import { instagramHttpOf } from '../http-of.js';
import { readContainer, type ContainerStatus } from './containers.js';
import {
  codeOf,
  containerErrorText,
  isTransient,
  isTransientSubcode,
  refusalText,
  SPAM_BLOCK_SUBCODE,
} from './graph-verdicts.js';
import { holdUntilQuotaFrees } from './quota.js';

const EXPIRED_TEXT =
  'Instagram let the prepared post expire before it was published (containers last 24 hours); Postdeck prepares it again.';

/**
 * One step of an Instagram publish, the container's id being the publish id (contract 2.1, 2.3): reads the
 * container; a FINISHED one is published (`media_publish`), anything else is reported as it stands. The
 * container is the key that makes this exactly once: Instagram publishes a container at most once, and after
 * any doubt (no answer, the false failure after a publish, a crash) the container is read again, PUBLISHED
 * meaning done. A container that expired or failed to fetch our media is made anew by a new attempt.
 */
export async function advanceInstagramPublish(
  deps: CoreDeps,
  platform: PlatformDoc,
  containerId: string,
): Promise<PublishState> {
  const http = instagramHttpOf(deps);
  return withInstagramToken(deps, platform, async (token) => {
    const container = await readContainer(http, token, containerId);
    if (container.code !== 'FINISHED') return stateOf(container);
    return publishContainer(deps, http, token, platform.providerAccountId, containerId);
  });
}

async function publishContainer(
  deps: CoreDeps,
  http: InstagramHttp,
  token: string,
  userId: string,
  containerId: string,
): Promise<PublishState> {
  let mediaId: string;
  try {
    const answer = await http.post<{ id?: unknown }>(`/${userId}/media_publish`, { creation_id: containerId }, token);
    if (typeof answer.id !== 'string' || answer.id === '') throw new Error('media_publish answered no media id');
    mediaId = answer.id;
  } catch (error) {
    return afterPublishFailed(deps, http, token, userId, containerId, error);
  }
  // Best effort: a live post is never failed for want of its link (contract 2.1 step 5).
  const permalink = await http
    .get<{ permalink?: unknown }>(`/${mediaId}`, { fields: 'permalink' }, token)
    .then((media) => (typeof media.permalink === 'string' ? media.permalink : null))
    .catch(() => null);
  return published([mediaId], permalink, `PUBLISHED as media ${mediaId}`);
}

/**
 * media_publish failed. Certain answers say nothing was published: not ready yet (9007, waited out), the quota
 * (a hold until it frees), an expired container (made anew), a refusal that will not pass. Any other failure is a
 * doubt, settled by the container: PUBLISHED is done; otherwise the next step publishes the same container again.
 */
async function afterPublishFailed(
  deps: CoreDeps,
  http: InstagramHttp,
  token: string,
  userId: string,
  containerId: string,
  error: unknown,
): Promise<PublishState> {
  if (error instanceof GraphError) {
    if (error.tokenDead) throw error;
    if (error.code === 9007) return pending('FINISHED', `media_publish: not ready yet (${codeOf(error)}), waiting`);
    if (error.subcode === 2207042) throw await holdUntilQuotaFrees(http, token, userId, deps.now());
    if (error.code === 24) return failed('EXPIRED', EXPIRED_TEXT, true, `media_publish: ${error.detail}`);
    if (!isTransient(error) && error.subcode !== SPAM_BLOCK_SUBCODE) {
      return failed('REFUSED', refusalText(error), false, `media_publish refused: ${error.detail}`);
    }
  }
  const why = error instanceof GraphError ? error.detail : error instanceof Error ? error.message : String(error);
  const container = await readContainer(http, token, containerId).catch(() => null);
  if (container?.code === 'PUBLISHED') {
    return published([], null, `PUBLISHED (read after media_publish failed: ${why}; the media id was not answered)`);
  }
  return pending(
    container?.code ?? 'FINISHED',
    `media_publish failed (${why}); the container is not published, trying again`,
  );
}

function stateOf(container: ContainerStatus): PublishState {
  switch (container.code) {
    case 'PUBLISHED':
      return published([], null, 'PUBLISHED (the media id was not answered)');
    case 'EXPIRED':
      return failed('EXPIRED', EXPIRED_TEXT, true, container.status);
    case 'ERROR':
      return failed(
        'ERROR',
        containerErrorText(container.subcode, container.status),
        isTransientSubcode(container.subcode),
        container.status,
      );
    default:
      return pending(container.code, container.status);
  }
}

function published(releaseIds: string[], releaseUrl: string | null, description: string): PublishState {
  return {
    status: 'PUBLISHED',
    outcome: 'published',
    releaseIds,
    ...(releaseUrl ? { releaseUrl } : {}),
    failure: null,
    awaitingUploadBytes: null,
    description,
  };
}

function pending(status: string, description: string): PublishState {
  return { status, outcome: 'pending', releaseIds: [], failure: null, awaitingUploadBytes: null, description };
}

function failed(status: string, text: string, retryable: boolean, reason: string): PublishState {
  return {
    status,
    outcome: 'failed',
    releaseIds: [],
    failure: { reason, retryable, text },
    awaitingUploadBytes: null,
    description: `${status}: ${reason}`,
  };
}
