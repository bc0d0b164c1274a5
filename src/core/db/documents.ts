import type { ErrorCode, IssueDetail } from '../errors.js';

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
  /** Normalized (trimmed, lower-case); null for users made by `admin bootstrap`. */
  email: string | null;
  name: string;
  /** argon2id hash (PHC string); null for users who cannot sign in with a password. */
  passwordHash: string | null;
  createdAt: Date;
}

/**
 * Reserves an email for one user: `_id` is the normalized email, so the unique `_id` index
 * decides between concurrent sign-ups (the emulator has no atomic findOneAndUpdate and may
 * lack partial indexes, which a unique index on `users.email` with nulls would need).
 */
export interface UserEmailDoc {
  _id: string;
  userId: string;
  createdAt: Date;
}

/** A signed-in session; the bearer token itself is never stored, only its SHA-256. */
export interface SessionDoc {
  _id: string;
  userId: string;
  hash: string;
  createdAt: Date;
  expiresAt: Date;
}

/** An invitation to a workspace; the link's token is stored only as its SHA-256. */
export interface InvitationDoc {
  _id: string;
  workspaceId: string;
  accountId: string;
  /** When set, only a user with this (normalized) email may accept. */
  email: string | null;
  role: MembershipRole;
  hash: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedBy: string | null;
  revokedAt: Date | null;
}

/**
 * One RFC 8628 device authorization as issued, plus its poll state. The device code is stored
 * only as its SHA-256. The outcome lives apart, in `device_decisions`: on the emulator an
 * updateOne rewrites the whole document, so a poll recording `lastPolledAt` could otherwise
 * wipe out an approval written at the same moment.
 */
export interface DeviceCodeDoc {
  _id: string;
  deviceCodeHash: string;
  /** The 8 code characters, normalized (no prefix, no dash, upper-case). */
  userCode: string;
  prefix: string;
  clientName: string | null;
  /** Seconds the device must wait between polls; grows by 5 on each slow_down. */
  interval: number;
  lastPolledAt: Date | null;
  createdAt: Date;
  expiresAt: Date;
}

/** How a device authorization was settled; `locked` means too many near-miss guesses. */
export type DeviceOutcome = 'approved' | 'denied' | 'locked';

/**
 * The outcome of a device authorization, `_id` = the device authorization's id. Inserted
 * once (the unique `_id` decides between approve, deny and lock racing); afterwards only the
 * one poll that won the redemption writes `redeemedAt` and `apiKeyId`.
 */
export interface DeviceDecisionDoc {
  _id: string;
  outcome: DeviceOutcome;
  /** For approvals: the workspace the key is scoped to. */
  workspaceId: string | null;
  accountId: string | null;
  /** The user who approved or denied; null for a lock. */
  decidedBy: string | null;
  decidedAt: Date;
  redeemedAt: Date | null;
  apiKeyId: string | null;
}

/** Reserves a user code among live codes: `_id` is the normalized code, so an insert decides. */
export interface DeviceUserCodeDoc {
  _id: string;
  deviceId: string;
  expiresAt: Date;
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
  /** Written only by revocation: see ApiKeyUsageDoc for why usage lives elsewhere. */
  revokedAt: Date | null;
}

/**
 * When a key was last used, kept apart from the key: FerretDB 1.x rewrites whole documents, so a
 * usage write racing a revocation on the same document could undo the revocation.
 */
export interface ApiKeyUsageDoc {
  _id: string;
  lastUsedAt: Date;
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

/**
 * A platform's provider tokens, `_id` = the platform id, kept apart from the platform so listing
 * never loads them. Both tokens are sealed (SecretBox, AES-256-GCM); written only under the
 * platform's token lease, so a refresh, a reconnect and a disconnect never interleave.
 */
export interface PlatformTokenDoc {
  _id: string;
  provider: 'tiktok';
  /** Sealed access token. */
  accessToken: string;
  /** Sealed refresh token; always the newest one (TikTok rotates it on every refresh). */
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
  provider: 'tiktok';
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

/**
 * Where the last claim of a lease key or the last spend of an allowance window landed. A hint
 * only, written after the fact (races may leave it behind, never wrong ahead), so lookups can go
 * straight to the right `_id` instead of scanning: FerretDB pushes down only `_id` equality.
 */
export interface PositionHintDoc {
  _id: string;
  position: number;
}

/**
 * Finds a record by the hash of its secret (an API key, a session token) with one `_id`
 * lookup, because on FerretDB any other filter scans the whole collection. `_id` is
 * `<kind>:<sha256>`; the hash is not the secret, and the target keeps its own plain id.
 */
export interface SecretLookupDoc {
  _id: string;
  targetId: string;
  /** When the target stops being valid (sessions); null for records that do not expire. */
  expiresAt: Date | null;
}

/** Where a media object came from (spec 2): uploads, baked-caption composites, raw AI images. */
export type MediaSource = 'upload' | 'composite' | 'generated';

/** A media object; its bytes live in the media store under `storageKey`. */
export interface MediaDoc {
  _id: string;
  workspaceId: string;
  source: MediaSource;
  status: 'PENDING' | 'READY';
  /** Opaque store key (128 random bits in hex), never a path. */
  storageKey: string;
  /** The secret part of the public URLs (128 random bits in hex), compared in constant time. */
  publicToken: string;
  mimeType: string;
  mediaType: 'image' | 'video' | 'audio' | 'file';
  size: number | null;
  /** Hex SHA-256 of the bytes, served as the strong ETag. */
  sha256: string;
  originalFileName: string;
  folderId: string | null;
  /** Images: `{ width, height }`; videos: `{ width, height, durationSec, fps }` (each null when unreadable). */
  thumbnailMetadata: Record<string, unknown> | null;
  /** The stored preview, or null when the generic video placeholder is served. */
  preview: { storageKey: string; mimeType: string; size: number; sha256: string } | null;
  finalizedAt: Date | null;
  createdAt: Date;
}

/** Which derived copies of a media object exist (one per purpose). */
export type MediaRenditionKind = 'tiktok';

/**
 * A derived copy of a media object's bytes, `_id` = `${mediaId}#${kind}` (e.g. the JPEG sent to TikTok for an
 * image over 1080p). Its own document, not a field on the media doc: FerretDB rewrites whole documents, so
 * a rendition written while the media is moved to a folder could lose either change; inserting the `_id`
 * also decides between workers making the same rendition at once. Never updated after the insert.
 */
export interface MediaRenditionDoc {
  _id: string;
  mediaId: string;
  workspaceId: string;
  kind: MediaRenditionKind;
  storageKey: string;
  mimeType: string;
  size: number;
  /** Hex SHA-256 of the bytes, served as the strong ETag. */
  sha256: string;
  width: number;
  height: number;
  createdAt: Date;
}

/** A media folder; its name is unique per workspace through a `media_folder_names` reservation. */
export interface MediaFolderDoc {
  _id: string;
  workspaceId: string;
  name: string;
  nameKey: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Reserves a folder name in a workspace: `_id` is `${workspaceId}:${nameKey}`, so an insert
 * decides between concurrent creates and renames. (A unique index on the folders themselves would
 * do for inserts, but FerretDB reports an update that breaks one without the duplicate-key code.)
 */
export interface MediaFolderNameDoc {
  _id: string;
  folderId: string;
  createdAt: Date;
}

/**
 * Binds an Idempotency-Key to the request first sent with it: `_id` is the key id
 * (sha256 of workspace id + key), inserted once. `bindingId` prefixes the attempt and outcome
 * ids, so documents of a purged binding can never be mistaken for a later one's.
 */
export interface IdempotencyKeyDoc {
  _id: string;
  kind: 'key';
  keyId: string;
  bindingId: string;
  workspaceId: string;
  fingerprint: string;
  createdAt: Date;
}

/**
 * One try at executing a keyed request, `_id` = `${bindingId}#${n}`: inserting the next number
 * decides the single executor (also when taking over from a crashed one). Only its holder
 * updates it afterwards (heartbeat, release).
 */
export interface IdempotencyAttemptDoc {
  _id: string;
  kind: 'attempt';
  keyId: string;
  attempt: number;
  holder: string;
  expiresAt: Date;
  releasedAt: Date | null;
  createdAt: Date;
}

/** The outcome replayed for a key, `_id` = `${bindingId}#outcome`, inserted once and never changed. */
export interface IdempotencyOutcomeDoc {
  _id: string;
  kind: 'outcome';
  keyId: string;
  outcome:
    | { type: 'success'; status: number; body: string | null }
    | { type: 'error'; code: ErrorCode; message: string; details: IssueDetail[] | null };
  createdAt: Date;
}

/** Every document of the `idempotency` collection; all carry the `keyId` they belong to. */
export type IdempotencyDoc = IdempotencyKeyDoc | IdempotencyAttemptDoc | IdempotencyOutcomeDoc;

/** Where a post is in its life; PUBLISHING is the engine's: an attempt was claimed and runs. */
export type PostState = 'DRAFT' | 'QUEUE' | 'PUBLISHING' | 'PUBLISHED' | 'ERROR';

/**
 * One post of a group (the root, or a thread reply with `parentPostId`). Before PUBLISHING the API
 * writes it under the post's edit lease (`post:<id>`); from PUBLISHING on only the engine does, so
 * no two actors ever rewrite one document at once (FerretDB would lose fields).
 */
export interface PostDoc {
  _id: string;
  workspaceId: string;
  /** The owner account, whose monthly post cap the root's unit was spent from. */
  accountId: string;
  groupId: string;
  parentPostId: string | null;
  /** A root's thread replies, in order (absent or empty: none), so the engine finds them by `_id`. */
  replyIds?: string[];
  /** The platform (API field `integrationId`). */
  platformId: string;
  content: string;
  /** Provider settings as the platform's posting schema names them. */
  settings: Record<string, unknown>;
  mediaIds: string[];
  state: PostState;
  scheduledFor: Date | null;
  /** Thread replies: minutes after the root was published (null: right after it). */
  delayInMinutes: number | null;
  /** When the engine should take the post: scheduledFor, or the moment it was queued for `now`; null for drafts. */
  dueAt: Date | null;
  releaseId: string | null;
  releaseUrl: string | null;
  errorText: string | null;
  /** The post-cap ledger unit spent when the root entered QUEUE, kept for a refund. */
  capSpend: { id: string; pool: string; period: string; slot: number } | null;
  createdAt: Date;
  updatedAt: Date;
}

/** How far one publishing attempt got; `init_sent` is written before the init request leaves. */
export type PublishAttemptPhase = 'claimed' | 'init_sent' | 'init_answered' | 'created_nothing' | 'outcome_unknown';

/**
 * One attempt to publish a post, `_id` = `${postId}#${n}`: inserting it is the claim (one winner).
 * Attempt n+1 may exist only when attempt n ended `created_nothing`, so TikTok never gets a second
 * init for a post it may already have. Only the attempt's holder writes it after the insert.
 */
export interface PublishAttemptDoc {
  _id: string;
  postId: string;
  workspaceId: string;
  n: number;
  /** The worker that holds it (a process-unique id). */
  worker: string;
  claimedAt: Date;
  /** Renewed while the worker works; past it, the sweeper may resolve the attempt. */
  leaseExpiresAt: Date;
  phase: PublishAttemptPhase;
  /** TikTok's publish_id, stored the moment the init answer arrives. */
  publishId: string | null;
  /** What happened, in order: what was sent, what TikTok answered. No tokens. */
  events: { at: Date; what: string; detail: string | null }[];
}

/**
 * A job of the due-task lane (src/core/jobs/due-tasks.ts), `_id` = `<epoch second due>#<slot>` so a
 * second's tasks are found by `_id` lookups; claimed through a lease, marked done by its claimer.
 */
export interface DueTaskDoc {
  _id: string;
  /** The job definition's name. */
  name: string;
  data: unknown;
  runAt: Date;
  failCount: number;
  /** Ran (or given up on); kept a short while so the slot walk of its second stays unbroken. */
  done: boolean;
  createdAt: Date;
}
