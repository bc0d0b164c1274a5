import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { COUNT_NAMES } from './growth.js';
import { isProcessing, NextPublishSchema, type FailReason, type Publish } from './publish-model.js';

/** The creator-info codes TikTok answers with HTTP 200 when a creator cannot post right now (contract 4.1). */
export const CANNOT_POST_CODES = [
  'spam_risk_too_many_posts',
  'spam_risk_user_banned_from_posting',
  'reached_active_user_cap',
] as const;

/** Endpoints a failure can be injected into; `upload` is the upload host's PUT, `*` any of them. */
export const FAILURE_ENDPOINTS = [
  'user_info',
  'creator_info',
  'video_query',
  'token',
  'video_init',
  'inbox_init',
  'content_init',
  'status',
  'cancel',
  'upload',
  '*',
] as const;

/**
 * An injected failure: the next `times` calls of `endpoint` answer `status` with `code` (any 4xx or 5xx, e.g.
 * 429 `rate_limit_exceeded`, 5xx `internal_error`, or a 403 init code), without doing anything else.
 */
export const FailureSchema = z.object({
  endpoint: z.enum(FAILURE_ENDPOINTS),
  status: z.number().int().min(400).max(599),
  code: z.string().min(1),
  times: z.number().int().positive().default(1),
});
/** See FailureSchema. */
export type Failure = z.infer<typeof FailureSchema>;

/** One emulated TikTok user, as the control API creates and edits it. */
export const AccountSchema = z.object({
  openId: z
    .string()
    .min(1)
    .default(() => `emu-${randomBytes(8).toString('hex')}`),
  unionId: z
    .string()
    .min(1)
    .default(() => `union-${randomBytes(8).toString('hex')}`),
  displayName: z.string().default('Emulated Creator'),
  username: z.string().default('emulated.creator'),
  avatarUrl: z.string().default('https://example.invalid/avatar.jpg'),
  bioDescription: z.string().default(''),
  isVerified: z.boolean().default(false),
  followerCount: z.number().int().default(0),
  followingCount: z.number().int().default(0),
  likesCount: z.number().int().default(0),
  videoCount: z.number().int().default(0),
  privacyLevelOptions: z.array(z.string()).default(['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']),
  commentDisabled: z.boolean().default(false),
  duetDisabled: z.boolean().default(false),
  stitchDisabled: z.boolean().default(false),
  maxVideoPostDurationSec: z.number().int().positive().default(600),
  canPost: z.boolean().default(true),
  /** Which HTTP-200 creator-info code explains `canPost: false`. */
  cannotPostReason: z.enum(CANNOT_POST_CODES).default('spam_risk_too_many_posts'),
  /** Scopes this user leaves unticked on the consent page (a partial grant). */
  deniedScopes: z.array(z.string()).default([]),
  failures: z.array(FailureSchema).default([]),
  /** Banned from posting: inits answer 403 and creator info 200 `spam_risk_user_banned_from_posting`. */
  banned: z.boolean().default(false),
  /** The user's TikTok app is older than 31.8: photo MEDIA_UPLOAD answers 400 `app_version_check_failed`. */
  appVersionOutdated: z.boolean().default(false),
  /** Direct posts made today through other apps; they count toward the shared daily cap. */
  otherClientPostsToday: z.number().int().min(0).default(0),
  /** A directive for the next publish (see NextPublishSchema); cleared when a publish takes it. */
  nextPublish: NextPublishSchema.nullable().default(null),
});
/** See AccountSchema. */
export type Account = z.infer<typeof AccountSchema>;

/** A grant: one authorization's access and refresh tokens, scopes and lifetimes (epoch ms). */
export interface Grant {
  /** Stable across refreshes (tokens rotate); publishes name their grant by it. */
  id: string;
  accessToken: string;
  refreshToken: string;
  openId: string;
  scopes: string[];
  accessExpiresAt: number;
  refreshExpiresAt: number;
  revoked: boolean;
}

/**
 * What the control API changed about one published post (contract 8.4): pinned counts (a count set here is
 * answered as set, whatever the curve says), who can see it now and whether it was removed.
 */
export const VideoChangesSchema = z.object({
  pinned: z.partialRecord(z.enum(COUNT_NAMES), z.number().int().min(0)).default({}),
  privacyLevel: z.string().nullable().default(null),
  removed: z.boolean().default(false),
});
/** See VideoChangesSchema. */
export type VideoChanges = z.infer<typeof VideoChangesSchema>;

/** An issued, not yet redeemed authorization code. */
export interface AuthCode {
  code: string;
  openId: string;
  scopes: string[];
  redirectUri: string;
  codeChallenge: string | undefined;
  expiresAt: number;
}

interface Snapshot {
  accounts: Account[];
  /** Files written before grants had ids lack them. */
  grants: (Omit<Grant, 'id'> & { id?: string })[];
  publishes?: Publish[];
  initRequests?: Record<string, number>;
  videoChanges?: Record<string, VideoChanges>;
  postClockOffsetMs?: number;
}

/** Everything the emulator remembers; codes stay in memory only (they live for minutes). */
export class EmulatorState {
  readonly accounts = new Map<string, Account>();
  readonly grants: Grant[] = [];
  readonly codes = new Map<string, AuthCode>();
  /** Every publish_id, in creation order. */
  readonly publishes = new Map<string, Publish>();
  /** Init requests per open_id that carried a valid token, whatever the answer. */
  readonly initRequests = new Map<string, number>();
  /** API requests received, by `METHOD /path` (whatever the answer; never persisted): what a test counts calls by. */
  readonly apiRequests = new Map<string, number>();
  /** Control-API changes to published posts, by post id. */
  readonly videoChanges = new Map<string, VideoChanges>();
  /** How far the post clock (which ages posts for their counts) runs ahead of real time; only ever grows. */
  postClockOffsetMs = 0;
  /** Running downloads and uploads, so cancel and revoke can stop them (never persisted). */
  readonly inflight = new Map<string, AbortController>();
  private closed = false;

  constructor(private readonly dataFile?: string) {
    if (dataFile && existsSync(dataFile)) {
      const snapshot = JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot;
      for (const account of snapshot.accounts) this.accounts.set(account.openId, AccountSchema.parse(account));
      this.grants.push(...snapshot.grants.map((g) => ({ ...g, id: g.id ?? randomBytes(8).toString('hex') })));
      for (const [openId, count] of Object.entries(snapshot.initRequests ?? {})) this.initRequests.set(openId, count);
      for (const [postId, changes] of Object.entries(snapshot.videoChanges ?? {})) {
        this.videoChanges.set(postId, VideoChangesSchema.parse(changes));
      }
      this.postClockOffsetMs = snapshot.postClockOffsetMs ?? 0;
      for (const publish of snapshot.publishes ?? []) {
        this.publishes.set(publish.publishId, publish);
        // Received bytes do not survive a restart, so a transfer cut by it can never finish: TikTok's retryable
        // `internal`. Publishes whose bytes were all in (held or settled) carry on.
        if (isProcessing(publish) && !publish.outcome) this.settle(publish, 'FAILED', 'internal', false);
      }
    }
  }

  /** Ends a publish in `status` (FAILED with `failReason`), stopping any transfer of it. */
  settle(
    publish: Publish,
    status: 'PUBLISH_COMPLETE' | 'SEND_TO_USER_INBOX' | 'FAILED',
    failReason: FailReason | null,
    save = true,
  ): void {
    this.inflight.get(publish.publishId)?.abort();
    this.inflight.delete(publish.publishId);
    publish.status = status;
    publish.failReason = status === 'FAILED' ? failReason : null;
    publish.outcome = null;
    if (status !== 'SEND_TO_USER_INBOX') publish.settledAt = Date.now();
    if (save) this.save();
  }

  /** Revokes a grant (contract 7): its tokens stop working and its in-flight publishes fail with auth_removed. */
  revokeGrant(grant: Grant): void {
    grant.revoked = true;
    for (const publish of this.publishes.values()) {
      if (publish.grantId === grant.id && isProcessing(publish)) this.settle(publish, 'FAILED', 'auth_removed', false);
    }
    this.save();
  }

  /** The post clock: real time plus the offset tests move forward (contract 8.4); only post counts read it. */
  postNow(): number {
    return Date.now() + this.postClockOffsetMs;
  }

  /** The completed publish that produced post `postId`, if any. */
  publishOfPost(postId: string): Publish | undefined {
    return [...this.publishes.values()].find((p) => p.status === 'PUBLISH_COMPLETE' && p.postIds.includes(postId));
  }

  /** Counts an init request of this user. */
  countInit(openId: string): void {
    this.initRequests.set(openId, (this.initRequests.get(openId) ?? 0) + 1);
  }

  /** The live grant holding this access token, whatever its expiry. */
  grantByAccess(token: string): Grant | undefined {
    return this.grants.find((g) => g.accessToken === token && !g.revoked);
  }

  /** The live grant holding this refresh token. */
  grantByRefresh(token: string): Grant | undefined {
    return this.grants.find((g) => g.refreshToken === token && !g.revoked);
  }

  /** Takes the first injected failure for this account and endpoint, if any, counting it down. */
  takeFailure(openId: string, endpoint: Failure['endpoint']): Failure | undefined {
    const account = this.accounts.get(openId);
    const failure = account?.failures.find((f) => f.endpoint === endpoint || f.endpoint === '*');
    if (!account || !failure) return undefined;
    failure.times -= 1;
    if (failure.times <= 0) account.failures.splice(account.failures.indexOf(failure), 1);
    this.save();
    return failure;
  }

  /** Stops writing and stops every transfer (the emulator is shutting down; the file keeps the last state). */
  close(): void {
    this.closed = true;
    for (const controller of this.inflight.values()) controller.abort();
    this.inflight.clear();
  }

  /** Writes accounts, grants and publishes to the data file (write then rename: a crash never leaves half a file). */
  save(): void {
    if (!this.dataFile || this.closed) return;
    const snapshot: Snapshot = {
      accounts: [...this.accounts.values()],
      grants: this.grants,
      publishes: [...this.publishes.values()],
      initRequests: Object.fromEntries(this.initRequests),
      videoChanges: Object.fromEntries(this.videoChanges),
      postClockOffsetMs: this.postClockOffsetMs,
    };
    writeFileSync(`${this.dataFile}.tmp`, JSON.stringify(snapshot, null, 2));
    renameSync(`${this.dataFile}.tmp`, this.dataFile);
  }
}

/** An opaque random token with TikTok's visible prefix (`act.`, `rft.`). */
export function newToken(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}
