import type { Collection, Db, IndexDescription } from 'mongodb';
import type {
  AccountDoc,
  ApiKeyDoc,
  LeaseDoc,
  LedgerDoc,
  MembershipDoc,
  PlatformDoc,
  UserDoc,
  WorkerProbeDoc,
  WorkspaceDoc,
} from './documents.js';

/** Every collection Postdeck owns, typed. Agenda keeps its own `agendaJobs` collection. */
export interface Collections {
  accounts: Collection<AccountDoc>;
  workspaces: Collection<WorkspaceDoc>;
  users: Collection<UserDoc>;
  memberships: Collection<MembershipDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  platforms: Collection<PlatformDoc>;
  leases: Collection<LeaseDoc>;
  ledger: Collection<LedgerDoc>;
  workerProbes: Collection<WorkerProbeDoc>;
}

type IndexTable = { [K in keyof Collections]: IndexDescription[] };

/** All indexes, declared in one place and ensured at start-up. */
const INDEXES: IndexTable = {
  accounts: [],
  workspaces: [{ key: { accountId: 1 } }, { key: { name: 1 } }],
  users: [{ key: { email: 1 } }],
  memberships: [{ key: { workspaceId: 1, userId: 1 }, unique: true }, { key: { userId: 1 } }],
  apiKeys: [{ key: { hash: 1 }, unique: true }, { key: { workspaceId: 1 } }],
  platforms: [{ key: { workspaceId: 1, provider: 1, providerAccountId: 1 }, unique: true }],
  leases: [{ key: { key: 1, generation: -1 } }, { key: { expiresAt: 1 } }],
  ledger: [{ key: { pool: 1, period: 1 } }],
  workerProbes: [],
};

const NAMES: { [K in keyof Collections]: string } = {
  accounts: 'accounts',
  workspaces: 'workspaces',
  users: 'users',
  memberships: 'memberships',
  apiKeys: 'api_keys',
  platforms: 'platforms',
  leases: 'leases',
  ledger: 'ledger',
  workerProbes: 'worker_probes',
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
