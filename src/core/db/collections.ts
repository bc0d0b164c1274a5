import type { Collection, Db, IndexDescription } from 'mongodb';
import type { AuditEntryDoc } from '../audit/documents.js';
import type { ApiKeyDoc, ApiKeyRevisionDoc, ApiKeyUsageDoc } from '../auth/documents.js';
import type { LeaseDoc, LedgerDoc, PositionHintDoc, SecretLookupDoc } from './primitive-documents.js';
import type {
  ChatCardActionDoc,
  ChatCardDoc,
  ChatDeliveryDoc,
  ChatInstallationDoc,
  ChatLinkDoc,
  ChatLoginDoc,
} from '../chat/documents.js';
import type { DeviceCodeDoc, DeviceDecisionDoc, DeviceUserCodeDoc } from '../device/documents.js';
import type { IdempotencyDoc } from '../idempotency/documents.js';
import type { InsightCollectorDoc, InsightMemberDoc, InsightMissDoc } from '../insights/collector-documents.js';
import type { AccountSnapshotDoc, PostInsightDoc, PostSnapshotDoc } from '../insights/documents.js';
import type { InvitationDoc, MembershipDoc, SessionDoc, UserDoc, UserEmailDoc } from '../identity/documents.js';
import type { EventReceiptDoc, OutboxDoc, RelayMarkDoc } from '../events/documents.js';
import type { DueTaskDoc, PeriodicRunDoc } from '../jobs/documents.js';
import type {
  MediaDoc,
  MediaFolderDoc,
  MediaFolderNameDoc,
  MediaRenditionDoc,
  UploadLinkDoc,
} from '../media/documents.js';
import type { OAuthClientDoc, OAuthCodeDoc } from '../oauth/documents.js';
import type { WorkerProbeDoc } from '../ops/documents.js';
import type { WebhookDeliveryDoc, WebhookEndpointDoc } from '../webhooks/documents.js';
import type {
  CreatorInfoDoc,
  OAuthStateDoc,
  OAuthStateUseDoc,
  PlatformDoc,
  PlatformTokenDoc,
} from '../platforms/documents.js';
import type { PostDoc } from '../posts/documents.js';
import type { PublishAttemptDoc } from '../publishing/documents.js';
import type { GenerationJobDoc } from '../slides/generation/documents.js';
import type { AccountDoc, WorkspaceDoc } from '../tenancy/documents.js';

/** Every collection Postdeck owns, typed. Agenda keeps its own `agendaJobs` collection. */
export interface Collections {
  accounts: Collection<AccountDoc>;
  workspaces: Collection<WorkspaceDoc>;
  users: Collection<UserDoc>;
  userEmails: Collection<UserEmailDoc>;
  sessions: Collection<SessionDoc>;
  memberships: Collection<MembershipDoc>;
  invitations: Collection<InvitationDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  apiKeyUsage: Collection<ApiKeyUsageDoc>;
  apiKeyRevisions: Collection<ApiKeyRevisionDoc>;
  platforms: Collection<PlatformDoc>;
  platformTokens: Collection<PlatformTokenDoc>;
  creatorInfo: Collection<CreatorInfoDoc>;
  oauthStates: Collection<OAuthStateDoc>;
  oauthStateUses: Collection<OAuthStateUseDoc>;
  leases: Collection<LeaseDoc>;
  ledger: Collection<LedgerDoc>;
  positionHints: Collection<PositionHintDoc>;
  secretLookups: Collection<SecretLookupDoc>;
  workerProbes: Collection<WorkerProbeDoc>;
  periodicRuns: Collection<PeriodicRunDoc>;
  deviceCodes: Collection<DeviceCodeDoc>;
  deviceDecisions: Collection<DeviceDecisionDoc>;
  deviceUserCodes: Collection<DeviceUserCodeDoc>;
  media: Collection<MediaDoc>;
  mediaFolders: Collection<MediaFolderDoc>;
  mediaFolderNames: Collection<MediaFolderNameDoc>;
  mediaRenditions: Collection<MediaRenditionDoc>;
  uploadLinks: Collection<UploadLinkDoc>;
  oauthClients: Collection<OAuthClientDoc>;
  oauthCodes: Collection<OAuthCodeDoc>;
  idempotency: Collection<IdempotencyDoc>;
  posts: Collection<PostDoc>;
  dueTasks: Collection<DueTaskDoc>;
  publishAttempts: Collection<PublishAttemptDoc>;
  generationJobs: Collection<GenerationJobDoc>;
  outbox: Collection<OutboxDoc>;
  eventReceipts: Collection<EventReceiptDoc>;
  relayMarks: Collection<RelayMarkDoc>;
  chatLinks: Collection<ChatLinkDoc>;
  chatLogins: Collection<ChatLoginDoc>;
  chatCards: Collection<ChatCardDoc>;
  chatCardActions: Collection<ChatCardActionDoc>;
  chatDeliveries: Collection<ChatDeliveryDoc>;
  chatInstallations: Collection<ChatInstallationDoc>;
  postInsights: Collection<PostInsightDoc>;
  postSnapshots: Collection<PostSnapshotDoc>;
  accountSnapshots: Collection<AccountSnapshotDoc>;
  insightCollectors: Collection<InsightCollectorDoc>;
  insightMisses: Collection<InsightMissDoc>;
  insightMembers: Collection<InsightMemberDoc>;
  webhookEndpoints: Collection<WebhookEndpointDoc>;
  webhookDeliveries: Collection<WebhookDeliveryDoc>;
  audit: Collection<AuditEntryDoc>;
}

type IndexTable = { [K in keyof Collections]: IndexDescription[] };

/** All indexes, declared in one place and ensured at start-up. */
const INDEXES: IndexTable = {
  accounts: [],
  workspaces: [{ key: { accountId: 1 } }, { key: { name: 1 } }],
  users: [{ key: { email: 1 } }],
  // Emails are unique through user_emails' `_id`, not an index here (see UserEmailDoc).
  userEmails: [{ key: { userId: 1 } }],
  sessions: [{ key: { hash: 1 }, unique: true }, { key: { userId: 1 } }, { key: { expiresAt: 1 } }],
  memberships: [{ key: { workspaceId: 1, userId: 1 }, unique: true }, { key: { userId: 1 } }],
  invitations: [{ key: { hash: 1 }, unique: true }, { key: { workspaceId: 1 } }, { key: { expiresAt: 1 } }],
  apiKeys: [{ key: { hash: 1 }, unique: true }, { key: { workspaceId: 1 } }],
  apiKeyUsage: [],
  apiKeyRevisions: [],
  platforms: [{ key: { workspaceId: 1, provider: 1, providerAccountId: 1 }, unique: true }],
  // Looked up by `_id`; the upkeep reads every document's dates (no filter the emulator could push down).
  platformTokens: [],
  creatorInfo: [],
  oauthStates: [{ key: { expiresAt: 1 } }],
  oauthStateUses: [{ key: { expiresAt: 1 } }],
  leases: [{ key: { key: 1, generation: -1 } }, { key: { expiresAt: 1 } }],
  ledger: [{ key: { pool: 1, period: 1 } }],
  positionHints: [],
  secretLookups: [{ key: { expiresAt: 1 } }],
  workerProbes: [],
  // Found by `_id` (the periodic job's name) only.
  periodicRuns: [],
  deviceCodes: [{ key: { deviceCodeHash: 1 }, unique: true }, { key: { userCode: 1 } }, { key: { expiresAt: 1 } }],
  deviceDecisions: [],
  deviceUserCodes: [{ key: { expiresAt: 1 } }],
  media: [{ key: { workspaceId: 1, createdAt: -1, _id: -1 } }, { key: { workspaceId: 1, folderId: 1, createdAt: -1 } }],
  // Names are unique per workspace through media_folder_names' `_id`, not an index here.
  mediaFolders: [{ key: { workspaceId: 1, nameKey: 1 } }],
  mediaFolderNames: [],
  // Found by `_id` (`${mediaId}#${kind}`) only.
  mediaRenditions: [],
  // Found by `_id` (the secret's hash); this serves the purge.
  uploadLinks: [{ key: { expiresAt: 1 } }],
  // Clients and codes are found by `_id` (the client_id, the code's hash); this serves the purge.
  oauthClients: [],
  oauthCodes: [{ key: { expiresAt: 1 } }],
  // Requests find their documents by `_id`; these serve the purge.
  idempotency: [{ key: { createdAt: 1 } }, { key: { keyId: 1 } }],
  // Scanned on FerretDB whatever the index; MongoDB uses it for the due query.
  dueTasks: [{ key: { runAt: 1 } }],
  posts: [
    { key: { workspaceId: 1, parentPostId: 1, scheduledFor: 1 } },
    { key: { groupId: 1 } },
    { key: { state: 1, dueAt: 1 } },
    { key: { workspaceId: 1, mediaIds: 1, state: 1 } },
    // The relay sweep reads recently changed posts (src/core/events/relay-sweep.ts).
    { key: { updatedAt: 1 } },
  ],
  publishAttempts: [{ key: { postId: 1, n: 1 } }, { key: { phase: 1, leaseExpiresAt: 1 } }],
  // Read by `_id` (the job's id, checked against the workspace); the relay sweep reads recent changes.
  generationJobs: [{ key: { updatedAt: 1 } }],
  // Delivered by `_id`; these serve the relay sweep and the purge.
  outbox: [{ key: { dispatched: 1, relayedAt: 1 } }, { key: { relayedAt: 1 } }],
  eventReceipts: [{ key: { at: 1 } }],
  relayMarks: [],
  // Links are found by `_id` (`<platform>:<team>`), and per workspace when a draft needs cards.
  chatLinks: [{ key: { workspaceId: 1 } }],
  chatLogins: [{ key: { expiresAt: 1 } }],
  // Cards are found by `_id` (`<link>:<post>`), and by post when it is published or fails.
  chatCards: [{ key: { postId: 1 } }],
  // Recorded and ended by `_id`; recovery reads the pending ones whose claim lapsed, the purge ended ones.
  chatCardActions: [{ key: { state: 1, claimedUntil: 1 } }, { key: { endedAt: 1 } }],
  chatDeliveries: [{ key: { expiresAt: 1 } }],
  chatInstallations: [],
  // Found by `_id` (the post's id) when one post is read or recorded, and by the collector through its
  // account's `insightMembers`; these serve the workspace's lists (scanned on FerretDB, used by MongoDB);
  // the relay sweep reads recently changed ones for their milestone events.
  postInsights: [{ key: { workspaceId: 1, publishedAt: -1 } }, { key: { updatedAt: 1 } }],
  // Written by `_id` (`<postId>#<slot>`: a slot is stored once); read as one post's series.
  postSnapshots: [{ key: { postId: 1, slot: 1 } }],
  // Written by `_id` (`<platformId>#<hour>`); read as one account's series.
  accountSnapshots: [{ key: { platformId: 1, takenAt: 1 } }],
  // One per connected account, read whole by the collection planner and by `_id` by its runs.
  insightCollectors: [],
  // Found by `_id` (the post's id) only.
  insightMisses: [],
  // Walked by `_id` (`<platformId>#<n>`, insert-once) only.
  insightMembers: [],
  // A workspace's endpoints, read whole per event and per list.
  webhookEndpoints: [{ key: { workspaceId: 1 } }],
  // Sent by `_id`; these serve an endpoint's log and the wait for a subject's earlier pending event.
  // The metrics gauge counts the pending ones; the retention purge finds old settled ones by windowStart.
  webhookDeliveries: [
    { key: { endpointId: 1, createdAt: -1 } },
    { key: { endpointId: 1, subjectId: 1, state: 1 } },
    { key: { state: 1, windowStart: 1 } },
  ],
  // The audit page and GET /audit read a workspace's entries newest first; the retention purge, by `at` alone.
  audit: [{ key: { workspaceId: 1, at: -1, _id: -1 } }, { key: { at: 1 } }],
};

const NAMES: { [K in keyof Collections]: string } = {
  accounts: 'accounts',
  workspaces: 'workspaces',
  users: 'users',
  userEmails: 'user_emails',
  sessions: 'sessions',
  memberships: 'memberships',
  invitations: 'invitations',
  apiKeys: 'api_keys',
  apiKeyUsage: 'api_key_usage',
  apiKeyRevisions: 'api_key_revisions',
  platforms: 'platforms',
  platformTokens: 'platform_tokens',
  creatorInfo: 'creator_info',
  oauthStates: 'oauth_states',
  oauthStateUses: 'oauth_state_uses',
  leases: 'leases',
  ledger: 'ledger',
  positionHints: 'position_hints',
  secretLookups: 'secret_lookups',
  workerProbes: 'worker_probes',
  periodicRuns: 'periodic_runs',
  deviceCodes: 'device_codes',
  deviceDecisions: 'device_decisions',
  deviceUserCodes: 'device_user_codes',
  media: 'media',
  mediaFolders: 'media_folders',
  mediaFolderNames: 'media_folder_names',
  mediaRenditions: 'media_renditions',
  uploadLinks: 'upload_links',
  oauthClients: 'oauth_clients',
  oauthCodes: 'oauth_codes',
  idempotency: 'idempotency',
  posts: 'posts',
  dueTasks: 'due_tasks',
  publishAttempts: 'publish_attempts',
  generationJobs: 'generation_jobs',
  outbox: 'outbox',
  eventReceipts: 'event_receipts',
  relayMarks: 'relay_marks',
  chatLinks: 'chat_links',
  chatLogins: 'chat_logins',
  chatCards: 'chat_cards',
  chatCardActions: 'chat_card_actions',
  chatDeliveries: 'chat_deliveries',
  chatInstallations: 'chat_installations',
  postInsights: 'post_insights',
  postSnapshots: 'post_snapshots',
  accountSnapshots: 'account_snapshots',
  insightCollectors: 'insight_collectors',
  insightMisses: 'insight_misses',
  insightMembers: 'insight_members',
  webhookEndpoints: 'webhook_endpoints',
  webhookDeliveries: 'webhook_deliveries',
  audit: 'audit',
};

/** Typed handles on every collection of `db`. */
export function collectionsOf(db: Db): Collections {
  const entries = Object.entries(NAMES).map(([key, name]) => [key, db.collection(name)]);
  return Object.fromEntries(entries) as Collections;
}

/**
 * Creates every declared index; safe to run on each start. One index per command: FerretDB 1.24
 * drops the connection when a multi-index createIndexes names indexes that already exist.
 */
export async function ensureIndexes(db: Db): Promise<void> {
  for (const [key, indexes] of Object.entries(INDEXES) as [keyof Collections, IndexDescription[]][]) {
    for (const { key: fields, ...options } of indexes) await db.collection(NAMES[key]).createIndex(fields, options);
  }
}
