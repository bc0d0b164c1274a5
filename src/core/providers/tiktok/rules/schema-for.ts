import type { CoreDeps } from '../../../context.js';
import type { PlatformDoc } from '../../../platforms/documents.js';
import { requirePostingPlatform } from '../connect/platform-errors.js';
import { readCreatorInfo } from './creator-info-cache.js';
import { buildTikTokPostingSchema, type PostingSchemaBody } from './posting-schema.js';

/**
 * The posting schema of a TikTok account, from its creator info (its privacy options change when the creator
 * changes their account), reused for half a minute at most. A disconnected account, one that needs
 * reconnecting, and one whose grant lacks `video.publish` answer 409 `conflict` with what to do.
 */
export async function tiktokPostingSchemaFor(deps: CoreDeps, platform: PlatformDoc): Promise<PostingSchemaBody> {
  requirePostingPlatform(platform);
  const creator = await readCreatorInfo(deps, platform, 'request');
  const account = { id: platform._id, displayName: platform.displayName, displayHandle: platform.displayHandle };
  return buildTikTokPostingSchema({ platform: account, creator, checkedAt: creator.checkedAt });
}
