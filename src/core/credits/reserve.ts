import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreDeps, Scope } from '../context.js';
import { monthlyPeriod, spendManyFromAllowance } from '../db/allowance.js';
import { claimLease, releaseLease } from '../db/leases.js';
import { AppError } from '../errors.js';
import { accountLimits, creditPoolId, creditPoolRules, type CreditPool, type CreditSpend } from './credits.js';

/** How long one reservation may hold its pool's turn; it is one read and one insert. */
const TURN_LEASE_MS = 15_000;
/** How long a reservation waits for another process's turn to end before answering 429. */
const TURN_WAIT_MS = 60_000;

/**
 * Takes one credit of `pool` for each of `refs`, all or none: 402 when the pool cannot cover every
 * one of them, with nothing spent. Reservations of one account's pool take turns under a short
 * lease, so two jobs never each hold part of what only one of them can have (both would then be
 * refused). The units are still the ledger's slots, so even a lapsed turn can never overspend.
 */
export async function reserveCredits(
  deps: CoreDeps,
  scope: Scope,
  pool: CreditPool,
  refs: readonly string[],
): Promise<CreditSpend[]> {
  const poolId = creditPoolId(pool, scope.accountId);
  return withTurn(deps, poolId, async () => {
    const { plan, limits } = await accountLimits(deps, scope.accountId);
    const { limit, code, what } = creditPoolRules(pool);
    const allowance = limits[limit];
    const period = monthlyPeriod(deps.now());
    const spent = await spendManyFromAllowance(
      deps.db,
      { pool: poolId, period, allowance },
      refs,
      (left) =>
        new AppError(
          code,
          `This needs ${refs.length} ${what} and the ${plan} plan has ${left} of ${allowance} left for ${period}; they reset on the 1st (UTC)`,
        ),
    );
    deps.metrics.creditsSpent(pool, spent.length);
    return spent;
  });
}

/** Reservations waiting in this process, per pool: they queue here, so only one at a time polls the lease. */
const localQueues = new Map<string, Promise<void>>();

/**
 * Runs `fn` holding the pool's reservation turn: first this process's turn (a queue in memory, in
 * arrival order), then the pool's lease across processes, polled with jitter while another holds it.
 */
async function withTurn<T>(deps: CoreDeps, poolId: string, fn: () => Promise<T>): Promise<T> {
  const before = localQueues.get(poolId) ?? Promise.resolve();
  let done = () => {};
  const mine = new Promise<void>((resolve) => (done = resolve));
  const queued = before.then(() => mine);
  localQueues.set(poolId, queued);
  try {
    await before;
    return await withLease(deps, poolId, fn);
  } finally {
    done();
    if (localQueues.get(poolId) === queued) localQueues.delete(poolId);
  }
}

async function withLease<T>(deps: CoreDeps, poolId: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + TURN_WAIT_MS;
  for (let waitMs = 5; ; waitMs = Math.min(waitMs * 2, 200)) {
    const turn = await claimLease(deps.db, `credits-reserve:${poolId}`, { ttlMs: TURN_LEASE_MS });
    if (turn) {
      try {
        return await fn();
      } finally {
        await releaseLease(deps.db, turn);
      }
    }
    if (Date.now() > deadline) {
      throw new AppError(
        'rate_limited',
        'Too many jobs are being started on this account at once; try again',
        undefined,
        5,
      );
    }
    await sleep(waitMs + randomInt(waitMs + 1));
  }
}
