import type Router from '@koa/router';
import { authorize, SlidingWindow } from './auth.js';
import { apiError, apiOk } from './envelope.js';
import type { EmulatorOptions } from './options.js';
import { postingBlock } from './quotas.js';
import type { Account, EmulatorState } from './state.js';

/** The scope each user-info field needs (contract 1.4, after the Feb 2024 migration). */
const FIELD_SCOPES: Record<string, string> = {
  open_id: 'user.info.basic',
  union_id: 'user.info.basic',
  avatar_url: 'user.info.basic',
  avatar_url_100: 'user.info.basic',
  avatar_large_url: 'user.info.basic',
  display_name: 'user.info.basic',
  bio_description: 'user.info.profile',
  profile_deep_link: 'user.info.profile',
  is_verified: 'user.info.profile',
  username: 'user.info.profile',
  follower_count: 'user.info.stats',
  following_count: 'user.info.stats',
  likes_count: 'user.info.stats',
  video_count: 'user.info.stats',
};

/** `GET /v2/user/info/` and `POST /v2/post/publish/creator_info/query/` with auth, scopes and rate limits. */
export function registerApi(router: Router, state: EmulatorState, options: EmulatorOptions): void {
  const limiter = new SlidingWindow();

  router.get('/v2/user/info/', (ctx) => {
    const caller = authorize(ctx, state, 'user.info.basic', 'user_info');
    if (!caller || !limiter.admit(ctx, caller.grant, 'user_info', options.rateLimits.userInfo)) return;
    const fields = (new URLSearchParams(ctx.querystring).get('fields') ?? '').split(',').filter(Boolean);
    const unknown = fields.filter((f) => !(f in FIELD_SCOPES));
    if (fields.length === 0 || unknown.length > 0) {
      return apiError(
        ctx,
        400,
        'invalid_params',
        `fields is required and must name known fields: ${unknown.join(',')}`,
      );
    }
    if (fields.some((f) => !caller.grant.scopes.includes(FIELD_SCOPES[f] ?? ''))) {
      return apiError(ctx, 400, 'scope_permission_missed', 'Some fields need additional scopes.');
    }
    const all = userFields(caller.account);
    apiOk(ctx, { user: Object.fromEntries(fields.map((f) => [f, all[f]])) });
  });

  router.post('/v2/post/publish/creator_info/query/', (ctx) => {
    const caller = authorize(ctx, state, 'video.publish', 'creator_info');
    if (!caller || !limiter.admit(ctx, caller.grant, 'creator_info', options.rateLimits.creatorInfo)) return;
    const a = caller.account;
    const data = {
      creator_avatar_url: a.avatarUrl,
      creator_username: a.username,
      creator_nickname: a.displayName,
      privacy_level_options: a.privacyLevelOptions,
      comment_disabled: a.commentDisabled,
      duet_disabled: a.duetDisabled,
      stitch_disabled: a.stitchDisabled,
      max_video_post_duration_sec: a.maxVideoPostDurationSec,
    };
    // HTTP 200 with a non-ok code is TikTok's "cannot post now" (contract 4.1, "intentional"): the fixture's
    // canPost flag, or the same ban and caps the inits enforce.
    const blocked = a.canPost ? postingBlock(state, options, a.openId) : a.cannotPostReason;
    if (blocked) return apiError(ctx, 200, blocked, 'The creator cannot post right now.', data);
    apiOk(ctx, data);
  });
}

function userFields(a: Account): Record<string, unknown> {
  return {
    open_id: a.openId,
    union_id: a.unionId,
    avatar_url: a.avatarUrl,
    avatar_url_100: a.avatarUrl,
    avatar_large_url: a.avatarUrl,
    display_name: a.displayName,
    bio_description: a.bioDescription,
    profile_deep_link: `https://www.tiktok.com/@${a.username}`,
    is_verified: a.isVerified,
    username: a.username,
    follower_count: a.followerCount,
    following_count: a.followingCount,
    likes_count: a.likesCount,
    video_count: a.videoCount,
  };
}
