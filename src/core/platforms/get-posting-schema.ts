import type { CoreDeps, Scope } from '../context.js';
import { queryCreatorInfo } from '../providers/tiktok/creator-info.js';
import { findWorkspacePlatform } from './find-platform.js';
import { toPlatform } from './list-platforms.js';
import { requirePostingPlatform } from './platform-errors.js';
import { withTikTokToken } from './tiktok-token-access.js';
import { buildTikTokPostingSchema, type PostingSchemaBody } from './tiktok-posting-schema.js';

/**
 * The posting schema of one of the workspace's accounts, from TikTok's creator info read live
 * (its privacy options change when the creator changes their account). A disconnected account,
 * one that needs reconnecting, and one whose grant lacks `video.publish` answer 409 `conflict`
 * with what to do; another workspace's id is 404 like an unknown one.
 */
export async function getPostingSchema(deps: CoreDeps, scope: Scope, platformId: string): Promise<PostingSchemaBody> {
  const platform = await findWorkspacePlatform(deps, scope, platformId);
  requirePostingPlatform(platform);
  const creator = await withTikTokToken(deps, platform, (token) => queryCreatorInfo(deps.tiktok, token));
  return buildTikTokPostingSchema({ platform: toPlatform(platform), creator, checkedAt: deps.now() });
}
