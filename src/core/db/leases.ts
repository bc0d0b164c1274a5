import { randomUUID } from 'node:crypto';
import { isDuplicateKeyError } from '../errors.js';
import type { Collections } from './collections.js';
import type { LeaseDoc } from './primitive-documents.js';
import { raiseHint, readHint } from './position-hints.js';

/** What the lease functions use: the leases and the hints that find their newest generation. */
export type LeaseStore = Pick<Collections, 'leases' | 'positionHints'>;

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
  store: LeaseStore,
  key: string,
  options: { ttlMs?: number; holder?: string; now?: Date } = {},
): Promise<Lease | null> {
  const now = options.now ?? new Date();
  const latest = await latestGeneration(store, key);
  if (latest && isHeld(latest, now)) return null;

  const generation = latest ? latest.generation + 1 : 0;
  const lease: Lease = {
    key,
    generation,
    holder: options.holder ?? randomUUID(),
    expiresAt: options.ttlMs === undefined ? NEVER : new Date(now.getTime() + options.ttlMs),
  };
  try {
    await store.leases.insertOne({ _id: leaseId(key, generation), ...lease, releasedAt: null, createdAt: now });
  } catch (error) {
    if (isDuplicateKeyError(error)) return null;
    throw error;
  }
  // Older generations stay: deleting one would let a caller holding a stale read win it again.
  // Generation 0 needs no hint (a missing hint reads as 0): most keys are claimed once.
  if (generation > 0) await raiseHint(store.positionHints, hintId(key), generation);
  return lease;
}

/** True while someone holds `key` (claimed, not released, not expired). A hint only: claim to decide. */
export async function isLeaseHeld(store: LeaseStore, key: string, now = new Date()): Promise<boolean> {
  const latest = await latestGeneration(store, key);
  return latest !== null && isHeld(latest, now);
}

/** Gives a lease back so another caller can take it at once. */
export async function releaseLease(store: LeaseStore, lease: Lease): Promise<void> {
  await store.leases.updateOne(
    { _id: leaseId(lease.key, lease.generation), holder: lease.holder },
    { $set: { releasedAt: new Date() } },
  );
}

/**
 * Extends a lease its holder still has. Returns false when it was lost (expired and taken
 * over), in which case the caller must stop the work the lease guarded.
 */
export async function renewLease(store: LeaseStore, lease: Lease, ttlMs: number): Promise<boolean> {
  const next = await latestGeneration(store, lease.key);
  if (!next || next.generation !== lease.generation || next.holder !== lease.holder || next.releasedAt) return false;
  const expiresAt = new Date(Date.now() + ttlMs);
  await store.leases.updateOne({ _id: leaseId(lease.key, lease.generation) }, { $set: { expiresAt } });
  lease.expiresAt = expiresAt;
  return true;
}

/**
 * The newest generation of `key`: from the hinted generation, walk `_id` lookups forward until
 * one is missing. Lookups by `_id` stay fast on FerretDB, where any other filter scans.
 * This is why clean-ups delete a key's generations all together, never some of them: a hint
 * pointing at a deleted generation below a live one would make that live one invisible.
 */
async function latestGeneration(store: LeaseStore, key: string): Promise<LeaseDoc | null> {
  let generation = await readHint(store.positionHints, hintId(key));
  let latest: LeaseDoc | null = null;
  for (;;) {
    const doc = await store.leases.findOne({ _id: leaseId(key, generation) });
    if (!doc) break;
    latest = doc;
    generation += 1;
  }
  return latest;
}

/** Forgets every generation of these leases and their position hints (for records being purged). */
export async function deleteLeases(store: LeaseStore, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await store.leases.deleteMany({ key: { $in: [...keys] } });
  await store.positionHints.deleteMany({ _id: { $in: keys.map(hintId) } });
}

function isHeld(lease: LeaseDoc, now: Date): boolean {
  return lease.releasedAt === null && lease.expiresAt > now;
}

function leaseId(key: string, generation: number): string {
  return `${key}#${generation}`;
}

function hintId(key: string): string {
  return `lease:${key}`;
}
