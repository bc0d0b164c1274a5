import { isIPv6 } from 'node:net';
import type { CoreDeps } from '../context.js';
import { isLastSlotTaken, spendFromAllowance } from '../db/allowance.js';
import { AppError } from '../errors.js';

/** At most `limit` counted events in `pool` per fixed window of `windowMs`. */
export interface RateLimit {
  pool: string;
  limit: number;
  windowMs: number;
}

/** The fixed window `now` falls in (its id) and the whole seconds until it ends. */
export function fixedWindow(now: Date, windowMs: number): { period: string; retryAfterSeconds: number } {
  const index = Math.floor(now.getTime() / windowMs);
  const endsAt = (index + 1) * windowMs;
  return {
    period: `w${windowMs / 1000}s:${index}`,
    retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000)),
  };
}

/**
 * Throws `rate_limited` (with Retry-After) when any limit is already used up in its window.
 * Called before the guarded check, so a throttled caller learns nothing from the answer.
 */
export async function assertUnderRateLimits(deps: CoreDeps, limits: readonly RateLimit[]): Promise<void> {
  const now = deps.now();
  for (const limit of limits) {
    const window = fixedWindow(now, limit.windowMs);
    if (await isLastSlotTaken(deps.db.ledger, limit.pool, window.period, limit.limit)) throw rateLimited(window);
  }
}

/**
 * Counts one event (a failed attempt) against every limit. Each event takes a ledger slot by
 * a unique insert, so concurrent attempts cannot slip past the limit; the attempt that finds
 * a window full is answered `rate_limited`.
 */
export async function countAgainstRateLimits(deps: CoreDeps, limits: readonly RateLimit[], ref: string): Promise<void> {
  const now = deps.now();
  let exceeded: { retryAfterSeconds: number; period: string } | undefined;
  for (const limit of limits) {
    const window = fixedWindow(now, limit.windowMs);
    try {
      await spendFromAllowance(deps.db, {
        spread: 1,
        pool: limit.pool,
        period: window.period,
        allowance: limit.limit,
        ref,
        limitCode: 'rate_limited',
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'rate_limited') throw error;
      if (!exceeded || window.retryAfterSeconds > exceeded.retryAfterSeconds) exceeded = window;
    }
  }
  if (exceeded) throw rateLimited(exceeded);
}

/**
 * The key a client address is limited under. IPv6 clients usually hold a whole /64, so they
 * are limited per /64; an IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function addressKey(address: string): string {
  const bare = address.split('%')[0] ?? address;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(bare)) return bare;
  const [left = '', right] = bare.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const width = (groups: string[]) => groups.reduce((n, group) => n + (group.includes('.') ? 2 : 1), 0);
  const head = groupsOf(left);
  const tail = right === undefined ? [] : groupsOf(right);
  const groups =
    right === undefined ? head : [...head, ...Array<string>(8 - width(head) - width(tail)).fill('0'), ...tail];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

function rateLimited(window: { retryAfterSeconds: number }): AppError {
  return new AppError(
    'rate_limited',
    `Too many attempts; try again in ${window.retryAfterSeconds} seconds`,
    undefined,
    window.retryAfterSeconds,
  );
}
