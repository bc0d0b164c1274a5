import type { CoreDeps } from '../context.js';
import { isDuplicateKeyError } from '../errors.js';
import type { AccountSnapshotDoc } from './documents.js';

const HOUR_MS = 3_600_000;

/** An account's totals as the collector read them from the network: plain numbers (likes null where it has none). */
export interface AccountCounts {
  followers: number;
  following: number;
  likes: number | null;
  videos: number;
}

/**
 * Records a connected account's totals taken at `takenAt`, at most one per hour (`_id` =
 * `<platformId>#<hour>`): a second write in the same hour is a duplicate and the first stays.
 * Returns whether this call stored it.
 */
export async function recordAccountSnapshot(
  deps: CoreDeps,
  platformId: string,
  counts: AccountCounts,
  takenAt: Date,
): Promise<boolean> {
  const platform = await deps.db.platforms.findOne({ _id: platformId }, { projection: { workspaceId: 1 } });
  if (!platform) return false;
  for (const [name, value] of Object.entries(counts)) {
    if (name === 'likes' && value === null) continue;
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  }
  const doc: AccountSnapshotDoc = {
    _id: `${platformId}#${Math.floor(takenAt.getTime() / HOUR_MS)}`,
    workspaceId: platform.workspaceId,
    platformId,
    followers: counts.followers,
    following: counts.following,
    likes: counts.likes,
    videos: counts.videos,
    takenAt,
  };
  try {
    await deps.db.accountSnapshots.insertOne(doc);
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}
