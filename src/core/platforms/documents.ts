// Stored documents of connected provider accounts and their OAuth states. Ids are UUID strings kept in `_id`.

/** The networks Postdeck connects accounts of (a platform's, its tokens' and its OAuth state's `provider`). */
export type ProviderId = 'tiktok' | 'instagram';

/** A connected provider account (filled by its provider's connection). */
export interface PlatformDoc {
  _id: string;
  workspaceId: string;
  provider: ProviderId;
  providerAccountId: string;
  displayName: string | null;
  displayHandle: string | null;
  displayImageUrl: string | null;
  disabled: boolean;
  refreshNeeded: boolean;
  tokenExpiresAt: Date | null;
  capabilities: string[];
  metadata: Record<string, unknown>;
  settings: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A platform's provider tokens, `_id` = the platform id, kept apart from the platform so listing
 * never loads them. Both tokens are sealed (SecretBox, AES-256-GCM); written only under the
 * platform's token lease, so a refresh, a reconnect and a disconnect never interleave.
 */
export interface PlatformTokenDoc {
  _id: string;
  provider: ProviderId;
  /** Sealed access token. */
  accessToken: string;
  /**
   * Sealed refresh token; always the newest one (TikTok rotates it on every refresh). Instagram has none:
   * its long-lived access token refreshes itself, so this holds the same sealed token and its expiry.
   */
  refreshToken: string;
  accessTokenExpiresAt: Date;
  refreshTokenExpiresAt: Date;
  /** When these tokens were issued: with the expiry it gives the token's own lifetime. */
  issuedAt: Date;
  scopes: string[];
  updatedAt: Date;
}

/**
 * A pending OAuth connection: `_id` is the SHA-256 of the `state` sent to the provider (the
 * state itself is never stored), bound to the workspace and to the session (or CLI run) that
 * started it through the hash of that binding.
 */
export interface OAuthStateDoc {
  _id: string;
  provider: ProviderId;
  workspaceId: string;
  accountId: string;
  /** The signed-in user who started it; null for the system (the admin CLI). */
  userId: string | null;
  bindingHash: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Marks an OAuth state as spent: inserted once, so the unique `_id` decides single use. */
export interface OAuthStateUseDoc {
  _id: string;
  usedAt: Date;
  expiresAt: Date;
}

/**
 * The last live account facts (TikTok's creator info) read for a platform (`_id` is the platform's), reused for a
 * short time; `result` is as its provider reads it.
 */
export interface CreatorInfoDoc<Result = unknown> {
  _id: string;
  workspaceId: string;
  result: Result;
  fetchedAt: Date;
}
