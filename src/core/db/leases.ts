import { randomUUID } from 'node:crypto';
import type { Collection } from 'mongodb';
import { isDuplicateKeyError } from '../errors.js';
import type { LeaseDoc } from './documents.js';

/** A lease that one caller won; pass it back to renew or release it. */
export interface Lease {
  key: string;
  generation: number;
  holder: string;
  expiresAt: Date;
}

/** Far enough in the future to mean "never expires" while staying a valid BSON date. */
const NEVER = new Date('9999-12-31T00:00:00Z');

/**
 * Tries to take the lease `key` for `ttlMs` (omit for a claim that never expires).
 * Exactly one concurrent caller wins: the winner is whoever inserts the next generation's
 * `_id` first, which a unique index decides atomically on MongoDB and on the emulator alike
 * (FerretDB's findOneAndUpdate is not atomic, so it is never used for this).
 * An expired or released lease can be taken over by inserting the generation after it.
 */
export async function claimLease(
  leases: Collection<LeaseDoc>,
  key: string,
  options: { ttlMs?: number; holder?: string; now?: Date } = {},
): Promise<Lease | null> {
  const now = options.now ?? new Date();
  const latest = await leases.findOne({ key }, { sort: { generation: -1 } });
  if (latest && latest.releasedAt === null && latest.expiresAt > now) return null;

  const generation = latest ? latest.generation + 1 : 0;
  const lease: Lease = {
    key,
    generation,
    holder: options.holder ?? randomUUID(),
    expiresAt: options.ttlMs === undefined ? NEVER : new Date(now.getTime() + options.ttlMs),
  };
  try {
    await leases.insertOne({ _id: leaseId(key, generation), ...lease, releasedAt: null, createdAt: now });
  } catch (error) {
    if (isDuplicateKeyError(error)) return null;
    throw error;
  }
  // Older generations stay: deleting one would let a caller holding a stale read win it again.
  return lease;
}

/** True while someone holds `key` (claimed, not released, not expired). A hint only: claim to decide. */
export async function isLeaseHeld(leases: Collection<LeaseDoc>, key: string, now = new Date()): Promise<boolean> {
  const latest = await leases.findOne({ key }, { sort: { generation: -1 } });
  return latest !== null && latest.releasedAt === null && latest.expiresAt > now;
}

/** Gives a lease back so another caller can take it at once. */
export async function releaseLease(leases: Collection<LeaseDoc>, lease: Lease): Promise<void> {
  await leases.updateOne(
    { _id: leaseId(lease.key, lease.generation), holder: lease.holder },
    { $set: { releasedAt: new Date() } },
  );
}

/**
 * Extends a lease its holder still has. Returns false when it was lost (expired and taken
 * over), in which case the caller must stop the work the lease guarded.
 */
export async function renewLease(leases: Collection<LeaseDoc>, lease: Lease, ttlMs: number): Promise<boolean> {
  const next = await leases.findOne({ key: lease.key }, { sort: { generation: -1 } });
  if (!next || next.generation !== lease.generation || next.holder !== lease.holder || next.releasedAt) return false;
  const expiresAt = new Date(Date.now() + ttlMs);
  await leases.updateOne({ _id: leaseId(lease.key, lease.generation) }, { $set: { expiresAt } });
  lease.expiresAt = expiresAt;
  return true;
}

function leaseId(key: string, generation: number): string {
  return `${key}#${generation}`;
}
