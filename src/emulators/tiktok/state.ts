import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

/** The creator-info codes TikTok answers with HTTP 200 when a creator cannot post right now (contract 4.1). */
export const CANNOT_POST_CODES = [
  'spam_risk_too_many_posts',
  'spam_risk_user_banned_from_posting',
  'reached_active_user_cap',
] as const;

/** An injected failure: the next `times` calls of `endpoint` answer `status` with `code`. */
export const FailureSchema = z.object({
  endpoint: z.enum(['user_info', 'creator_info', 'token', '*']),
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
});
/** See AccountSchema. */
export type Account = z.infer<typeof AccountSchema>;

/** A grant: one authorization's access and refresh tokens, scopes and lifetimes (epoch ms). */
export interface Grant {
  accessToken: string;
  refreshToken: string;
  openId: string;
  scopes: string[];
  accessExpiresAt: number;
  refreshExpiresAt: number;
  revoked: boolean;
}

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
  grants: Grant[];
}

/** Everything the emulator remembers; codes stay in memory only (they live for minutes). */
export class EmulatorState {
  readonly accounts = new Map<string, Account>();
  readonly grants: Grant[] = [];
  readonly codes = new Map<string, AuthCode>();

  constructor(private readonly dataFile?: string) {
    if (dataFile && existsSync(dataFile)) {
      const snapshot = JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot;
      for (const account of snapshot.accounts) this.accounts.set(account.openId, AccountSchema.parse(account));
      this.grants.push(...snapshot.grants);
    }
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

  /** Writes accounts and grants to the data file (write then rename, so a crash never leaves half a file). */
  save(): void {
    if (!this.dataFile) return;
    const snapshot: Snapshot = { accounts: [...this.accounts.values()], grants: this.grants };
    writeFileSync(`${this.dataFile}.tmp`, JSON.stringify(snapshot, null, 2));
    renameSync(`${this.dataFile}.tmp`, this.dataFile);
  }
}

/** An opaque random token with TikTok's visible prefix (`act.`, `rft.`). */
export function newToken(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}
