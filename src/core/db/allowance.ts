import { randomInt } from 'node:crypto';
import type { Collection } from 'mongodb';
import { AppError, isDuplicateKeyError, type ErrorCode } from '../errors.js';
import type { LedgerDoc } from './documents.js';

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
}

/**
 * Spends one unit. Each unit is a numbered slot (1..allowance) in the ledger, and a slot is
 * taken by inserting its unique `_id`, so concurrent spends can never exceed the allowance:
 * the unique index decides, not a read-then-write. A refund deletes the slot, freeing it.
 * Slots are picked at random among the free ones to keep concurrent spenders from colliding.
 */
export async function spendFromAllowance(ledger: Collection<LedgerDoc>, request: SpendRequest): Promise<Spend> {
  const { pool, period, allowance } = request;
  for (;;) {
    const taken = new Set(
      (await ledger.find({ pool, period }, { projection: { slot: 1 } }).toArray()).map((doc) => doc.slot),
    );
    const free: number[] = [];
    for (let slot = 1; slot <= allowance; slot++) if (!taken.has(slot)) free.push(slot);
    if (free.length === 0) {
      throw new AppError(request.limitCode, `The allowance of ${allowance} for this period (${period}) is used up`);
    }
    // Try a few free slots before re-reading: most collisions are with slots that just went.
    for (let attempt = 0; attempt < Math.min(free.length, 4); attempt++) {
      const slot = free.splice(randomInt(free.length), 1)[0] as number;
      const id = `${pool}#${period}#${slot}`;
      try {
        await ledger.insertOne({ _id: id, pool, period, slot, ref: request.ref, createdAt: new Date() });
        return { id, pool, period, slot };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
  }
}

/** Gives a spent unit back to its allowance. Refunding twice is harmless. */
export async function refundSpend(ledger: Collection<LedgerDoc>, spend: Spend): Promise<void> {
  await ledger.deleteOne({ _id: spend.id });
}

/** How many units of `pool` are spent in `period`. */
export async function countSpent(ledger: Collection<LedgerDoc>, pool: string, period: string): Promise<number> {
  return ledger.countDocuments({ pool, period });
}

/** The monthly allowance window that `at` falls in, in UTC: `YYYY-MM`. */
export function monthlyPeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}
