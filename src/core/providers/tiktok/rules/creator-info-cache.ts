import type { CoreDeps } from '../../../context.js';
import { logFailure } from '../../../db/unreachable.js';
import { isDuplicateKeyError } from '../../../errors.js';
import { queryCreatorInfo, type TikTokCreatorInfoResult } from '../creator-info.js';
import type { TikTokCaller } from '../rate-limiter.js';
import type { CreatorInfoDoc, PlatformDoc } from '../../../platforms/documents.js';
import { withTikTokToken } from '../connect/token-access.js';
import { tiktokHttpOf } from '../http-of.js';

/**
 * How long a creator-info answer is reused for an account. TikTok wants the values current when a
 * post is made (contract 5.1) and allows 20 reads a minute per token (contract 3): half a minute
 * keeps an agent's burst of schema reads and drafts to one read, and a changed privacy setting
 * shows within the half minute (TikTok's init refuses a stale option anyway).
 */
export const CREATOR_INFO_REUSE_MS = 30_000;

/** Creator info and when TikTok was asked for it. */
export interface CreatorInfoRead extends TikTokCreatorInfoResult {
  checkedAt: Date;
}

// Reads under way in this process, by platform and caller: a burst shares one TikTok call.
const underWay = new WeakMap<CoreDeps['db'], Map<string, Promise<CreatorInfoRead>>>();
// The engine's last answer in this process, by platform: reused while fresh without a database read
// (its check runs before every init, on the path a due post waits on).
const lastRead = new WeakMap<CoreDeps['db'], Map<string, CreatorInfoRead>>();

/**
 * The account's creator info, from the database when another read (in any process) made it within
 * CREATOR_INFO_REUSE_MS, else from TikTok. `caller` is `request` for people and agents (refused
 * with `rate_limited` rather than made to wait) and `background` for the publishing engine, which
 * first takes a fresh answer it read itself in this process (another process's newer read may then
 * go unseen for the rest of the half minute; TikTok's init refuses what the creator no longer allows).
 */
export function readCreatorInfo(deps: CoreDeps, platform: PlatformDoc, caller: TikTokCaller): Promise<CreatorInfoRead> {
  let remembered = lastRead.get(deps.db);
  if (!remembered) lastRead.set(deps.db, (remembered = new Map<string, CreatorInfoRead>()));
  const known = remembered.get(platform._id);
  if (caller === 'background' && known && isFresh(deps, known.checkedAt)) return Promise.resolve(known);
  // The database read is shared too: a caller that missed it must not start a second TikTok call
  // just after the first one stored its answer.
  let reads = underWay.get(deps.db);
  if (!reads) underWay.set(deps.db, (reads = new Map<string, Promise<CreatorInfoRead>>()));
  const key = `${platform._id}:${caller}`;
  const shared = reads.get(key);
  if (shared) return shared;
  const memory = remembered;
  const read = storedOrFetched(deps, platform, caller)
    .then((answer) => {
      if (caller === 'background') memory.set(platform._id, answer);
      if (memory.size > 10_000) memory.clear();
      return answer;
    })
    .finally(() => reads.delete(key));
  reads.set(key, read);
  return read;
}

async function storedOrFetched(deps: CoreDeps, platform: PlatformDoc, caller: TikTokCaller): Promise<CreatorInfoRead> {
  const stored = await deps.db.creatorInfo.findOne({ _id: platform._id });
  if (stored && isFresh(deps, stored.fetchedAt)) {
    // The provider's own document: what it stored it reads back.
    return { ...(stored.result as TikTokCreatorInfoResult), checkedAt: stored.fetchedAt };
  }
  return fetchAndStore(deps, platform, caller);
}

/** Forgets an account's stored creator info (disconnected, or connected again). */
export async function forgetCreatorInfo(deps: CoreDeps, platformId: string): Promise<void> {
  lastRead.get(deps.db)?.delete(platformId);
  await deps.db.creatorInfo.deleteOne({ _id: platformId });
}

function isFresh(deps: CoreDeps, checkedAt: Date): boolean {
  return deps.now().getTime() - checkedAt.getTime() < CREATOR_INFO_REUSE_MS;
}

/**
 * Asks TikTok and stores the answer for other processes. The engine's store only spares others a call,
 * so it waits for publishing to give way (JobQueue.afterPublishing) rather than add a write before an init.
 */
async function fetchAndStore(deps: CoreDeps, platform: PlatformDoc, caller: TikTokCaller): Promise<CreatorInfoRead> {
  const result = await withTikTokToken(deps, platform, (token) => queryCreatorInfo(tiktokHttpOf(deps), token, caller));
  const doc = { _id: platform._id, workspaceId: platform.workspaceId, result, fetchedAt: deps.now() };
  const store = () => storeRead(deps, doc);
  if (caller === 'background') void deps.jobs.afterPublishing(store);
  else await store();
  return { ...result, checkedAt: doc.fetchedAt };
}

/** Stores a read unless a newer one is stored already (a held store may land after a request's). */
async function storeRead(deps: CoreDeps, doc: CreatorInfoDoc<TikTokCreatorInfoResult>): Promise<void> {
  try {
    await deps.db.creatorInfo.replaceOne({ _id: doc._id, fetchedAt: { $lt: doc.fetchedAt } }, doc, { upsert: true });
  } catch (error) {
    // A newer (or same-moment) read is stored: the upsert's insert met its _id.
    if (!isDuplicateKeyError(error))
      logFailure(deps.logger, 'warn', error, { platformId: doc._id }, 'storing creator info failed');
  }
}
