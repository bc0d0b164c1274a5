import type { CoreDeps } from '../context.js';
import { addressKey, assertUnderRateLimits, countAgainstRateLimits, type RateLimit } from '../auth/rate-limit.js';
import { spendFromAllowance } from '../db/allowance.js';
import type { DeviceCodeDoc, DeviceDecisionDoc } from './documents.js';
import { AppError, notFound } from '../errors.js';
import { decideDeviceCode, findDecision } from './decision.js';
import { hammingDistance, normalizeUserCode } from './user-code.js';

const GUESS_WINDOW_MS = 15 * 60_000;
/** Wrong user codes one user may submit per window. */
export const WRONG_CODES_PER_USER = 10;
/** Wrong user codes one client address may submit per window (several users may share it). */
export const WRONG_CODES_PER_ADDRESS = 30;
/** A pending code locks at this many wrong submissions close to it. */
export const NEAR_MISS_LOCK_AFTER = 5;
/** "Close": differing in at most this many of the 8 characters (typos differ in one or two). */
export const NEAR_MISS_DISTANCE = 2;

/** Who is submitting a user code: limits apply per user and per address, never globally. */
export interface CodeSubmitter {
  userId: string;
  address: string;
}

/** A submitted code that matched: pending (no decision yet), or already decided by this very user. */
export interface MatchedCode {
  doc: DeviceCodeDoc;
  decision: DeviceDecisionDoc | null;
}

/**
 * Resolves a typed user code for `submitter`, guarding against guessing. A throttled
 * submitter is refused before the lookup, right code or not, so throttling reveals nothing.
 * A code that matches no live pending authorization counts against the submitter's limits
 * and as a near miss for every pending code it is close to; the answer is `not_found`.
 * A code the submitter already decided matches again, so a repeated click is harmless.
 */
export async function matchUserCode(deps: CoreDeps, submitter: CodeSubmitter, typed: string): Promise<MatchedCode> {
  const limits = guessLimits(submitter);
  await assertUnderRateLimits(deps, limits);
  const code = normalizeUserCode(typed);
  const doc = code
    ? await deps.db.deviceCodes.findOne({ userCode: code, expiresAt: { $gt: deps.now() } }, { sort: { createdAt: -1 } })
    : null;
  const decision = doc ? await findDecision(deps, doc._id) : null;
  if (doc && !decision) return { doc, decision: null };
  if (doc && decision && decision.outcome !== 'locked' && decision.decidedBy === submitter.userId) {
    return { doc, decision };
  }

  if (code) await countNearMisses(deps, code);
  await countAgainstRateLimits(deps, limits, 'device-code');
  throw notFound('Device code');
}

function guessLimits(submitter: CodeSubmitter): RateLimit[] {
  return [
    { pool: `ratelimit:device:user:${submitter.userId}`, limit: WRONG_CODES_PER_USER, windowMs: GUESS_WINDOW_MS },
    {
      pool: `ratelimit:device:ip:${addressKey(submitter.address)}`,
      limit: WRONG_CODES_PER_ADDRESS,
      windowMs: GUESS_WINDOW_MS,
    },
  ];
}

/**
 * Counts a wrong code against each live pending code within NEAR_MISS_DISTANCE of it. Each
 * near miss takes a numbered ledger slot by a unique insert, so concurrent misses are all
 * counted; the one that finds the NEAR_MISS_LOCK_AFTER - 1 slots taken locks the code.
 * Scanning the live pending codes is fine: there are only as many as people mid-login.
 */
async function countNearMisses(deps: CoreDeps, code: string): Promise<void> {
  const live = await deps.db.deviceCodes
    .find({ expiresAt: { $gt: deps.now() } }, { projection: { _id: 1, userCode: 1 } })
    .toArray();
  const near = live.filter((doc) => {
    const distance = hammingDistance(code, doc.userCode);
    return distance > 0 && distance <= NEAR_MISS_DISTANCE;
  });
  if (near.length === 0) return;
  const decided = new Set(
    (
      await deps.db.deviceDecisions
        .find({ _id: { $in: near.map((doc) => doc._id) } }, { projection: { _id: 1 } })
        .toArray()
    ).map((doc) => doc._id),
  );
  for (const doc of near) {
    if (decided.has(doc._id)) continue;
    try {
      await spendFromAllowance(deps.db, {
        spread: 1,
        pool: nearMissPool(doc._id),
        period: 'lifetime',
        allowance: NEAR_MISS_LOCK_AFTER - 1,
        ref: 'near-miss',
        limitCode: 'rate_limited',
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'rate_limited') throw error;
      if (await decideDeviceCode(deps, doc._id, { outcome: 'locked' })) {
        deps.logger.warn({ deviceId: doc._id }, 'device code locked after repeated near-miss guesses');
      }
    }
  }
}

/** The ledger pool counting near misses of one device authorization. */
export function nearMissPool(deviceId: string): string {
  return `device:near-miss:${deviceId}`;
}
