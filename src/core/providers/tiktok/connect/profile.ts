import type { Logger } from '../../../../logger.js';
import { queryCreatorInfo, type TikTokCreatorInfoResult } from '../creator-info.js';
import { TikTokApiError } from '../errors.js';
import type { TikTokHttp } from '../http.js';
import { getUserInfo } from '../user-info.js';

/** What a connection records about the account besides its tokens. */
export interface TikTokProfile {
  displayName: string | null;
  displayHandle: string | null;
  displayImageUrl: string | null;
  capabilities: string[];
  metadata: Record<string, unknown>;
}

const BASIC_FIELDS = ['open_id', 'union_id', 'avatar_url', 'display_name'];

/** The scopes whose absence a person should hear about: without them some posting is impossible. */
const REQUESTED_FOR_POSTING = ['user.info.profile', 'video.publish', 'video.upload'];

/**
 * What Postdeck may do with a grant: `video` and `photo` (Direct Post) need `video.publish`,
 * `draft` (inbox uploads) needs `video.upload` (contract 1.5). A partial grant gets fewer.
 */
export function capabilitiesFor(scopes: readonly string[]): string[] {
  const capabilities: string[] = [];
  if (scopes.includes('video.publish')) capabilities.push('video', 'photo');
  if (scopes.includes('video.upload')) capabilities.push('draft');
  return capabilities;
}

/**
 * Reads the account's profile with only the fields its scopes allow (asking for `username`
 * without `user.info.profile` fails the whole call), and the creator info when `video.publish`
 * was granted; the handle falls back to creator info's username. Creator info is a snapshot for
 * display (the posting schema reads its own, creator-info-cache.ts); a connection does not wait
 * for it when requests have used their share of TikTok's limit.
 */
export async function readTikTokProfile(
  http: TikTokHttp,
  logger: Logger,
  accessToken: string,
  scopes: readonly string[],
): Promise<TikTokProfile> {
  const fields = scopes.includes('user.info.profile') ? [...BASIC_FIELDS, 'username'] : BASIC_FIELDS;
  const user = await getUserInfo(http, accessToken, fields);
  let creator: TikTokCreatorInfoResult | null = null;
  if (scopes.includes('video.publish')) {
    try {
      creator = await queryCreatorInfo(http, accessToken, 'request');
    } catch (error) {
      // The snapshot is optional; a failing creator info must not block connecting the account.
      if (!(error instanceof TikTokApiError)) throw error;
      logger.warn({ tiktokCode: error.tiktokCode, logId: error.logId }, 'tiktok creator info unavailable at connect');
    }
  }
  const info = creator?.info ?? null;
  return {
    displayName: user.displayName || info?.nickname || null,
    displayHandle: user.username || info?.username || null,
    displayImageUrl: user.avatarUrl || info?.avatarUrl || null,
    capabilities: capabilitiesFor(scopes),
    metadata: {
      scopes: [...scopes],
      missingScopes: REQUESTED_FOR_POSTING.filter((s) => !scopes.includes(s)),
      // Whether the consent asked for analytics: a connection made with TIKTOK_ANALYTICS=false says so.
      analyticsRequested: http.config.analytics !== false,
      ...(user.unionId ? { unionId: user.unionId } : {}),
      ...(info
        ? {
            creatorInfo: {
              nickname: info.nickname,
              privacyLevelOptions: info.privacyLevelOptions,
              commentDisabled: info.commentDisabled,
              duetDisabled: info.duetDisabled,
              stitchDisabled: info.stitchDisabled,
              maxVideoPostDurationSec: info.maxVideoPostDurationSec,
              cannotPost: creator?.cannotPost?.code ?? null,
            },
          }
        : {}),
    },
  };
}
