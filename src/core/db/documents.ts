/** Shapes of the stored documents. Ids are UUID strings kept in `_id`. */

/** AI settings of a workspace (spec 1.5): applied automatically, never sent in a request. */
export interface AiSettings {
  systemPrompt: string;
  knowledgeBase: string;
  defaultLanguage: string;
  defaultSlideLength: 'short' | 'medium' | 'long';
  defaultTextStyle: 'primary-sans' | 'anton' | 'montserrat' | 'poppins' | 'league-spartan';
  defaultCaptionSize: 'small' | 'medium' | 'large';
}

/** The owner of workspaces; holds the plan and therefore the credit pools. */
export interface AccountDoc {
  _id: string;
  name: string;
  plan: string;
  createdAt: Date;
}

/** The spec's organization: the unit every resource and API key is scoped to. */
export interface WorkspaceDoc {
  _id: string;
  accountId: string;
  name: string;
  ai: AiSettings;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserDoc {
  _id: string;
  email: string | null;
  name: string;
  createdAt: Date;
}

export type MembershipRole = 'owner' | 'member';

export interface MembershipDoc {
  _id: string;
  workspaceId: string;
  userId: string;
  role: MembershipRole;
  createdAt: Date;
}

export interface ApiKeyDoc {
  _id: string;
  workspaceId: string;
  accountId: string;
  userId: string | null;
  name: string;
  /** First characters of the secret, shown in listings so a person can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A connected provider account (filled by the TikTok integration). */
export interface PlatformDoc {
  _id: string;
  workspaceId: string;
  provider: 'tiktok';
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

/** One generation of a lease; `_id` is `${key}#${generation}` so each generation is won once. */
export interface LeaseDoc {
  _id: string;
  key: string;
  generation: number;
  holder: string;
  expiresAt: Date;
  releasedAt: Date | null;
  createdAt: Date;
}

/** One spent unit of an allowance; `_id` is `${pool}#${period}#${slot}`, slot in 1..allowance. */
export interface LedgerDoc {
  _id: string;
  pool: string;
  period: string;
  slot: number;
  ref: string;
  createdAt: Date;
}

/** Written by the worker-probe job so an operator can see that a worker processes jobs. */
export interface WorkerProbeDoc {
  _id: string;
  holdMs: number;
  requestedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  workerPid: number | null;
}
