import { randomInt } from 'node:crypto';
import type { Collection } from 'mongodb';
import { AppError, isDuplicateKeyError, type ErrorCode } from '../errors.js';
import type { Collections } from './collections.js';
import type { LedgerDoc } from './primitive-documents.js';
import { raiseHint, readHint } from './position-hints.js';

/** What spending uses: the ledger and the hints that say where the last spend landed. */
export type LedgerStore = Pick<Collections, 'ledger' | 'positionHints'>;

/** A unit spent from an allowance; pass it to `refundSpend` to give it back. */
export interface Spend {
  id: string;
  pool: string;
  period: string;
  slot: number;
}

export interface SpendRequest {
  /** What is being spent from, e.g. `caption:<accountId>`. */
  pool: string;
  /** The allowance window, e.g. `2026-11` for a monthly allowance. */
  period: string;
  /** How many units the window allows. */
  allowance: number;
  /** What the unit paid for (a post id, a job id), kept for audits. */
  ref: string;
  /** The error code thrown when the allowance is used up. */
  limitCode: ErrorCode;
  /**
   * How many slots apart concurrent spenders may start (default 8), so a burst does not
   * collide on one slot. 1 fills slots strictly in order, which `isLastSlotTaken` relies on.
   */
  spread?: number;
}

const DEFAULT_SPREAD = 8;

/**
 * Spends one unit. Each unit is a numbered slot (1..allowance) in the ledger, and a slot is
 * taken by inserting its unique `_id`, so concurrent spends can never exceed the allowance:
 * the unique index decides, not a read-then-write. A refund deletes the slot, freeing it.
 * The fast path walks forward from where the last spend landed (only `_id` inserts, which
 * stay cheap on FerretDB); slots freed by refunds behind that point are found by one scan of
 * the window once the walk reaches the end.
 */
export async function spendFromAllowance(store: LedgerStore, request: SpendRequest): Promise<Spend> {
  const hint = hintId(request);
  const last = await readHint(store.positionHints, hint);
  // Once the walk's end is taken, walking can only collide; go straight to the free-slot search.
  const walkEnd = await isLastSlotTaken(store.ledger, request.pool, request.period, request.allowance);
  const start = walkEnd ? request.allowance + 1 : last + 1 + randomInt(request.spread ?? DEFAULT_SPREAD);
  for (let slot = start; slot <= request.allowance; slot++) {
    const spend = await tryTake(store.ledger, request, slot);
    if (spend) {
      await raiseHint(store.positionHints, hint, slot);
      return spend;
    }
  }
  return spendFromFreeSlots(store.ledger, request);
}

/**
 * Spends one unit for each of `refs`, all or none: `refused(left)` is thrown when fewer are free. One
 * read of the window and one insert of every unit, for a caller that takes turns on the pool
 * (credit reservations). A concurrent spender that takes one of the chosen slots makes the insert
 * collide: what was inserted is deleted again and the choice made afresh, so nothing is half-taken.
 */
export async function spendManyFromAllowance(
  store: LedgerStore,
  request: Omit<SpendRequest, 'ref' | 'spread' | 'limitCode'>,
  refs: readonly string[],
  refused: (left: number) => Error,
): Promise<(Spend & { ref: string })[]> {
  const { pool, period, allowance } = request;
  for (;;) {
    const taken = new Set(
      (await store.ledger.find({ pool, period }, { projection: { slot: 1 } }).toArray()).map((doc) => doc.slot),
    );
    const free: number[] = [];
    for (let slot = 1; slot <= allowance && free.length < refs.length; slot++) if (!taken.has(slot)) free.push(slot);
    if (free.length < refs.length) throw refused(Math.max(0, allowance - taken.size));
    const createdAt = new Date();
    const units = refs.map((ref, i) => {
      const slot = free[i] as number;
      return { _id: `${pool}#${period}#${slot}`, pool, period, slot, ref, createdAt };
    });
    try {
      await store.ledger.insertMany(units, { ordered: false });
    } catch (error) {
      await store.ledger.deleteMany({ _id: { $in: units.map((unit) => unit._id) }, ref: { $in: [...refs] } });
      if (isDuplicateKeyError(error)) continue;
      throw error;
    }
    await raiseHint(store.positionHints, hintId({ pool, period }), Math.max(...free));
    return units.map(({ _id, slot, ref }) => ({ id: _id, pool, period, slot, ref }));
  }
}

/** Gives a spent unit back to its allowance. Refunding twice is harmless. */
export async function refundSpend(store: LedgerStore, spend: Spend): Promise<void> {
  await store.ledger.deleteOne({ _id: spend.id });
}

/**
 * Whether the window's last slot is taken: for a pool filled in order (spread 1) and never
 * refunded, such as a rate limit, that means it is used up. One `_id` lookup, no scan.
 */
export async function isLastSlotTaken(
  ledger: Collection<LedgerDoc>,
  pool: string,
  period: string,
  allowance: number,
): Promise<boolean> {
  return (await ledger.findOne({ _id: `${pool}#${period}#${allowance}` }, { projection: { _id: 1 } })) !== null;
}

/** How many units of `pool` are spent in `period`. */
export async function countSpent(ledger: Collection<LedgerDoc>, pool: string, period: string): Promise<number> {
  return ledger.countDocuments({ pool, period });
}

/** The monthly allowance window that `at` falls in, in UTC: `YYYY-MM`. */
export function monthlyPeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}

// The slow path: read which slots are taken and try the free ones at random until one sticks.
async function spendFromFreeSlots(ledger: Collection<LedgerDoc>, request: SpendRequest): Promise<Spend> {
  for (;;) {
    const taken = new Set(
      (await ledger.find({ pool: request.pool, period: request.period }, { projection: { slot: 1 } }).toArray()).map(
        (doc) => doc.slot,
      ),
    );
    const free: number[] = [];
    for (let slot = 1; slot <= request.allowance; slot++) if (!taken.has(slot)) free.push(slot);
    if (free.length === 0) {
      throw new AppError(
        request.limitCode,
        `The allowance of ${request.allowance} for this period (${request.period}) is used up`,
      );
    }
    // Try a few free slots before re-reading: most collisions are with slots that just went.
    for (let attempt = 0; attempt < Math.min(free.length, 4); attempt++) {
      const slot = free.splice(randomInt(free.length), 1)[0] as number;
      const spend = await tryTake(ledger, request, slot);
      if (spend) return spend;
    }
  }
}

async function tryTake(ledger: Collection<LedgerDoc>, request: SpendRequest, slot: number): Promise<Spend | null> {
  const { pool, period } = request;
  const id = `${pool}#${period}#${slot}`;
  try {
    await ledger.insertOne({ _id: id, pool, period, slot, ref: request.ref, createdAt: new Date() });
    return { id, pool, period, slot };
  } catch (error) {
    if (isDuplicateKeyError(error)) return null;
    throw error;
  }
}

function hintId(request: Pick<SpendRequest, 'pool' | 'period'>): string {
  return `ledger:${request.pool}#${request.period}`;
}
