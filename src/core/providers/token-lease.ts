import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps } from '../context.js';
import { claimLease, releaseLease, type Lease } from '../db/leases.js';

/** How long one holder may keep a platform's token lease: a refresh is one call with a 30 s timeout. */
export const TOKEN_LEASE_TTL_MS = 60_000;
/** How often a waiter asks for the lease again. */
export const TOKEN_LEASE_POLL_MS = 100;

/** The lease every write of a platform's tokens or state goes under (connect, refresh, disconnect), any network. */
export function tokenLeaseKey(platformId: string): string {
  return `platform-tokens:${platformId}`;
}

/**
 * Runs `fn` holding the platform's token lease, waiting up to `waitMs` for another holder to
 * finish. Returns null when the lease could not be had in time.
 */
export async function underTokenLease<T>(
  deps: CoreDeps,
  platformId: string,
  fn: (lease: Lease) => Promise<T>,
  waitMs: number,
): Promise<{ value: T } | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lease = await claimLease(deps.db, tokenLeaseKey(platformId), { ttlMs: TOKEN_LEASE_TTL_MS });
    if (lease) {
      try {
        return { value: await fn(lease) };
      } finally {
        await releaseLease(deps.db, lease);
      }
    }
    if (Date.now() >= deadline) return null;
    await sleep(TOKEN_LEASE_POLL_MS);
  }
}
