import type { CoreDeps, Scope } from '../context.js';
import { monthlyPeriod, spendFromAllowance } from '../db/allowance.js';
import type { SpendDoc } from '../db/primitive-documents.js';
import { AppError, type ErrorCode } from '../errors.js';
import { limitsOf, type PlanLimits } from '../plans.js';

/** The two AI credit pools (spec 8): independent, monthly, per account and shared by its workspaces. */
export type CreditPool = 'caption' | 'image';

/** A spent credit, with what it paid for: refunds delete the slot only while it still pays for that. */
export type CreditSpend = SpendDoc;

const POOLS: Record<CreditPool, { limit: keyof PlanLimits; code: ErrorCode; what: string }> = {
  caption: { limit: 'captionCredits', code: 'ai_credit_limit_reached', what: 'caption credits' },
  image: { limit: 'imageCredits', code: 'ai_image_limit_reached', what: 'image credits' },
};

/** What a pool is counted against, the code of its 402 and its name in messages. */
export function creditPoolRules(pool: CreditPool): { limit: keyof PlanLimits; code: ErrorCode; what: string } {
  return POOLS[pool];
}

/** The ledger pool of an account's credits of one kind. */
export function creditPoolId(pool: CreditPool, accountId: string): string {
  return `${pool}:${accountId}`;
}

/** The account's plan name and limits (an unknown or missing plan counts as free). */
export async function accountLimits(deps: CoreDeps, accountId: string): Promise<{ plan: string; limits: PlanLimits }> {
  const account = await deps.db.accounts.findOne({ _id: accountId }, { projection: { plan: 1 } });
  const plan = account?.plan ?? 'free';
  return { plan, limits: limitsOf(deps.plans, plan) };
}

/**
 * Spends one credit of `pool` for `ref` in this calendar month (UTC), atomically through the
 * allowance ledger; throws 402 (`ai_credit_limit_reached` or `ai_image_limit_reached`) when used up.
 */
export async function spendCredit(deps: CoreDeps, scope: Scope, pool: CreditPool, ref: string): Promise<CreditSpend> {
  const { plan, limits } = await accountLimits(deps, scope.accountId);
  const { limit, code } = POOLS[pool];
  const period = monthlyPeriod(deps.now());
  try {
    const spend = await spendFromAllowance(deps.db, {
      pool: creditPoolId(pool, scope.accountId),
      period,
      allowance: limits[limit],
      ref,
      limitCode: code,
    });
    deps.metrics.creditsSpent(pool, 1);
    return { ...spend, ref };
  } catch (error) {
    if (error instanceof AppError && error.code === code) throw usedUp(pool, plan, limits[limit], period);
    throw error;
  }
}

/**
 * Spends for `ref` unless a credit of this month already pays for it: a job that resumes after a
 * crash between spending and recording the spend must not pay twice.
 */
export async function spendCreditOnce(
  deps: CoreDeps,
  scope: Scope,
  pool: CreditPool,
  ref: string,
): Promise<CreditSpend> {
  const poolId = creditPoolId(pool, scope.accountId);
  const period = monthlyPeriod(deps.now());
  const earlier = await deps.db.ledger.findOne({ pool: poolId, period, ref });
  if (earlier) return { id: earlier._id, pool: poolId, period, slot: earlier.slot, ref };
  return spendCredit(deps, scope, pool, ref);
}

/** Gives a credit back; harmless twice, and never frees a slot that now pays for something else. */
export async function refundCredit(deps: CoreDeps, spend: CreditSpend): Promise<void> {
  await deps.db.ledger.deleteOne({ _id: spend.id, ref: spend.ref });
}

/** The 402 for a used-up pool, saying when it resets. */
export function usedUp(pool: CreditPool, plan: string, allowance: number, period: string): AppError {
  const { code, what } = POOLS[pool];
  return new AppError(
    code,
    `The monthly ${what} of the ${plan} plan (${allowance}) are used up for ${period}; they reset on the 1st (UTC)`,
  );
}

/** When the monthly window holding `at` ends: the 1st of the next month, 00:00 UTC. */
export function nextMonthlyReset(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
