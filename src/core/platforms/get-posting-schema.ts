import type { CoreDeps, Scope } from '../context.js';
import { readCreatorInfo } from '../providers/tiktok/rules/creator-info-cache.js';
import { findWorkspacePlatform } from './find-platform.js';
import { toPlatform } from './list-platforms.js';
import { requirePostingPlatform } from './platform-errors.js';
import { buildTikTokPostingSchema, type PostingSchemaBody } from '../providers/tiktok/rules/posting-schema.js';

/**
 * The posting schema of one of the workspace's accounts, from TikTok's creator info (its privacy
 * options change when the creator changes their account), reused for half a minute at most. A
 * disconnected account, one that needs reconnecting, and one whose grant lacks `video.publish`
 * answer 409 `conflict` with what to do; another workspace's id is 404 like an unknown one.
 */
export async function getPostingSchema(deps: CoreDeps, scope: Scope, platformId: string): Promise<PostingSchemaBody> {
  const platform = await findWorkspacePlatform(deps, scope, platformId);
  requirePostingPlatform(platform);
  const creator = await readCreatorInfo(deps, platform, 'request');
  return buildTikTokPostingSchema({ platform: toPlatform(platform), creator, checkedAt: creator.checkedAt });
}
