import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimLease, releaseLease, renewLease } from '../../src/core/db/leases.js';
import { countSpent, monthlyPeriod, refundSpend, spendFromAllowance } from '../../src/core/db/allowance.js';
import { AppError } from '../../src/core/errors.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(async () => {
  await t.close();
});

describe('claim once (leases)', () => {
  it('gives a lease to exactly one of 200 concurrent claimers', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => claimLease(t.deps.db, 'publish:post-1', { holder: `h${i}` })),
    );
    const winners = results.filter((lease) => lease !== null);
    expect(winners).toHaveLength(1);
    expect(await t.deps.db.leases.countDocuments({ key: 'publish:post-1' })).toBe(1);
  });

  it('lets a claimer take over an expired lease, once', async () => {
    const first = await claimLease(t.deps.db, 'job:a', { ttlMs: 50 });
    expect(first).not.toBeNull();
    expect(await claimLease(t.deps.db, 'job:a', { ttlMs: 50 })).toBeNull();
    const later = new Date(Date.now() + 1_000);
    const takeovers = await Promise.all(
      Array.from({ length: 20 }, () => claimLease(t.deps.db, 'job:a', { ttlMs: 60_000, now: later })),
    );
    expect(takeovers.filter((lease) => lease !== null)).toHaveLength(1);
    // The crashed holder finds out it lost the lease when it tries to renew.
    expect(await renewLease(t.deps.db, first!, 60_000)).toBe(false);
  });

  it('can be claimed again after release, and renewed by its holder', async () => {
    const lease = await claimLease(t.deps.db, 'job:b', { ttlMs: 60_000 });
    expect(await renewLease(t.deps.db, lease!, 120_000)).toBe(true);
    await releaseLease(t.deps.db, lease!);
    const next = await claimLease(t.deps.db, 'job:b', { ttlMs: 60_000 });
    expect(next?.generation).toBe(1);
  });

  it('never expires a claim made without ttl', async () => {
    expect(await claimLease(t.deps.db, 'device:redeem:x')).not.toBeNull();
    const farFuture = new Date(Date.now() + 10 * 365 * 86_400_000);
    expect(await claimLease(t.deps.db, 'device:redeem:x', { now: farFuture })).toBeNull();
  });
});

describe('spend from an allowance (ledger)', () => {
  const request = (pool: string, allowance: number) => ({
    pool,
    period: monthlyPeriod(new Date()),
    allowance,
    ref: 'test',
    limitCode: 'ai_credit_limit_reached' as const,
  });

  it('lets exactly 50 of 200 concurrent spends through an allowance of 50', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, () => spendFromAllowance(t.deps.db, request('caption:acc-1', 50))),
    );
    const succeeded = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(succeeded).toHaveLength(50);
    expect(failed).toHaveLength(150);
    for (const failure of failed) {
      expect(failure.reason).toBeInstanceOf(AppError);
      expect((failure.reason as AppError).code).toBe('ai_credit_limit_reached');
    }
    expect(await countSpent(t.deps.db.ledger, 'caption:acc-1', monthlyPeriod(new Date()))).toBe(50);
  });

  it('frees a unit on refund, and refunding twice frees only one', async () => {
    const spends = await Promise.all([1, 2].map(() => spendFromAllowance(t.deps.db, request('image:acc-2', 2))));
    await expect(spendFromAllowance(t.deps.db, request('image:acc-2', 2))).rejects.toMatchObject({
      code: 'ai_credit_limit_reached',
    });
    await refundSpend(t.deps.db, spends[0]!);
    await refundSpend(t.deps.db, spends[0]!);
    await spendFromAllowance(t.deps.db, request('image:acc-2', 2));
    await expect(spendFromAllowance(t.deps.db, request('image:acc-2', 2))).rejects.toBeInstanceOf(AppError);
  });

  it('keeps pools and periods apart', async () => {
    await spendFromAllowance(t.deps.db, request('caption:acc-3', 1));
    await spendFromAllowance(t.deps.db, request('image:acc-3', 1));
    await spendFromAllowance(t.deps.db, { ...request('caption:acc-3', 1), period: '2099-01' });
    expect(monthlyPeriod(new Date('2026-11-30T23:59:59Z'))).toBe('2026-11');
  });
});
