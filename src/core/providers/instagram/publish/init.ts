import type { CoreDeps } from '../../../context.js';
import { PublishRefusal } from '../../../publishing/failure.js';
import type { PublishInit } from '../../port.js';
import { withInstagramToken } from '../connect/token-access.js';
import { GraphError, type InstagramHttp } from '../graph.js';
import { instagramHttpOf } from '../http-of.js';
import { createContainer, untilFinished } from './containers.js';
import { containerErrorText, isTransient, isTransientSubcode, refusalText } from './graph-verdicts.js';
import { itemsForInstagram } from './media-urls.js';
import { quotaHold } from './quota.js';
import { containerParamsOf, type ContainerParams } from './request.js';

/**
 * Prepares an Instagram post (contract 2.1): checks the rolling quota (a post that would pass it is held), makes
 * the item containers of a carousel and waits for them to finish, then makes the container that will be
 * published, whose id is the publish id. Nothing is published here: `media_publish` is the engine's next step
 * (`advance`), after the id is stored. Containers left behind by a failed init expire unpublished in 24 h.
 */
export async function initInstagramPublish(deps: CoreDeps, request: PublishInit): Promise<{ publishId: string }> {
  const { post, platform } = request;
  const http = instagramHttpOf(deps);
  const userId = platform.providerAccountId;
  const items = itemsForInstagram(deps, request.media);
  const params = containerParamsOf(request.kind, post.content, post.settings, items);
  try {
    return await withInstagramToken(deps, platform, async (token) => {
      const hold = await quotaHold(http, token, userId, deps.now());
      if (hold) throw hold;
      const top = request.kind === 'carousel' ? await carouselOf(http, token, userId, params) : params.top;
      // The container made next is the one published: only while this run still holds the attempt.
      await request.stillHeld();
      return { publishId: await createContainer(http, token, userId, top) };
    });
  } catch (error) {
    // Refusals that will not pass end the post (nothing was posted); the rest is tried again by the engine.
    if (error instanceof GraphError && !isTransient(error)) throw new PublishRefusal(refusalText(error));
    throw error;
  }
}

/** Makes the item containers, waits until each finished, and answers the carousel container's parameters. */
async function carouselOf(
  http: InstagramHttp,
  token: string,
  userId: string,
  params: ContainerParams,
): Promise<Record<string, string>> {
  const children: string[] = [];
  // One at a time: Instagram fetches each item's media while it answers.
  for (const item of params.items) children.push(await createContainer(http, token, userId, item));
  const ended = await untilFinished(http, token, children);
  if (ended?.code === 'ERROR' && !isTransientSubcode(ended.subcode)) {
    throw new PublishRefusal(containerErrorText(ended.subcode, ended.status));
  }
  if (ended) throw new Error(`Instagram ended a carousel item ${ended.code} (${ended.status})`);
  return { ...params.top, children: children.join(',') };
}
