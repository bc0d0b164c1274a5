import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/core/context.js';
import { refreshInstagramTokens } from '../../src/core/providers/instagram/connect/upkeep-job.js';
import { readInstagramToken } from '../../src/core/providers/instagram/connect/tokens.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { connectedInstagram, startInstagramFixture, type InstagramFixture } from '../support/instagram.js';

const DAY_MS = 86_400_000;

let f: InstagramFixture;
let t: TestDatabase;
beforeAll(async () => {
  f = await startInstagramFixture();
  t = await openTestDatabase({ instagram: f.config });
});
afterAll(async () => {
  await t.close();
  await f.close();
});

/** Postdeck's deps with its clock `days` ahead, and the emulator's moved the same way. */
async function later(days: number): Promise<CoreDeps> {
  const answer = await f.control('POST', '/__control/clock', { advanceSec: days * 86_400 });
  expect(answer.status).toBe(200);
  const offset = days * DAY_MS;
  return { ...t.deps, now: () => new Date(Date.now() + offset) };
}

describe('the Instagram token upkeep', () => {
  it('renews a token once it is 24 h old and has 30 days or less left, and leaves younger ones alone', async () => {
    const tenant = await buildTenant(t.deps);
    const { platform, account } = await connectedInstagram(t, f, tenant, { username: 'upkeep.one' });
    const before = (await readInstagramToken(t.deps, platform._id))!;

    expect(await refreshInstagramTokens(t.deps)).toEqual({ refreshed: 0, needReconnect: 0, failed: 0 });
    expect((await readInstagramToken(t.deps, platform._id))!.accessToken).toBe(before.accessToken);

    const deps = await later(31);
    expect(await refreshInstagramTokens(deps)).toMatchObject({ refreshed: 1, needReconnect: 0, failed: 0 });
    const after = (await readInstagramToken(t.deps, platform._id))!;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.expiresAt.getTime()).toBeGreaterThan(before.expiresAt.getTime() + 30 * DAY_MS);
    const stored = await t.deps.db.platforms.findOne({ _id: platform._id });
    expect(stored?.tokenExpiresAt?.getTime()).toBe(after.expiresAt.getTime());
    // The renewed token is one Instagram knows for this account.
    const me = await f.http.get<{ user_id: string }>('/me', { fields: 'user_id' }, after.accessToken);
    expect(me.user_id).toBe(account.userId);
    // Just renewed: not due again on the same run.
    expect((await refreshInstagramTokens(deps)).refreshed).toBe(0);
  });

  it('marks an account for reconnecting when Instagram says its token is dead', async () => {
    const tenant = await buildTenant(t.deps);
    const { platform, account } = await connectedInstagram(t, f, tenant, { username: 'upkeep.revoked' });
    expect((await f.control('POST', `/__control/accounts/${account.id}/tokens`, { action: 'revoke' })).status).toBe(
      200,
    );
    const report = await refreshInstagramTokens(await later(31));
    expect(report.needReconnect).toBeGreaterThanOrEqual(1);
    expect(await t.deps.db.platforms.findOne({ _id: platform._id })).toMatchObject({ refreshNeeded: true });
  });
});
