import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveDeviceCode } from '../../src/core/device/approve.js';
import { pollDeviceToken } from '../../src/core/device/poll.js';
import { purgeExpiredDeviceCodesJob } from '../../src/core/device/purge-job.js';
import { startDeviceAuthorization } from '../../src/core/device/start.js';
import type { JobContext } from '../../src/core/jobs/define-job.js';
import { PERIODIC_JOBS } from '../../src/app/jobs.js';
import { purgeExpiredIdentityRecordsJob } from '../../src/core/identity/purge-job.js';
import { authenticateSession } from '../../src/core/identity/sessions.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildUser, testClock, withClock } from '../support/identity.js';

const clock = testClock();
let t: TestDatabase;

beforeAll(async () => {
  t = withClock(await openTestDatabase(), clock);
});
afterAll(async () => {
  await t.close();
});

function context(): JobContext {
  return { deps: t.deps, jobId: 'test', attempt: 1, touch: () => Promise.resolve() };
}

const counts = async () => ({
  codes: await t.deps.db.deviceCodes.countDocuments(),
  userCodes: await t.deps.db.deviceUserCodes.countDocuments(),
  decisions: await t.deps.db.deviceDecisions.countDocuments(),
  leases: await t.deps.db.leases.countDocuments({ key: /^device:/ }),
});

describe('purging expired device codes', () => {
  it('is a registered job', () => {
    const periodic = PERIODIC_JOBS.map((job) => job.definition);
    expect(periodic).toContain(purgeExpiredDeviceCodesJob);
    expect(periodic).toContain(purgeExpiredIdentityRecordsJob);
  });

  it('deletes codes expired more than an hour ago with everything hanging off them, and keeps the rest', async () => {
    const user = await buildUser(t.deps);
    const old = await startDeviceAuthorization(t.deps, { publicUrl: 'http://x', expiresIn: 60 });
    await approveDeviceCode(t.deps, user.scope, { userCode: old.user_code, address: '10.0.0.1' });
    await pollDeviceToken(t.deps, { deviceCode: old.device_code });
    expect(await counts()).toEqual({ codes: 1, userCodes: 1, decisions: 1, leases: 2 }); // the poll and the redeem

    clock.advance(60_000 + 60 * 60_000 - 1_000); // expired, but not yet for an hour
    const recent = await startDeviceAuthorization(t.deps, { publicUrl: 'http://x' });
    await purgeExpiredDeviceCodesJob.perform({}, context());
    expect((await counts()).codes).toBe(2);

    clock.advance(2_000);
    await purgeExpiredDeviceCodesJob.perform({}, context());
    expect(await counts()).toEqual({ codes: 1, userCodes: 1, decisions: 0, leases: 0 });
    // A purged code still answers like an expired one; the live one is untouched.
    await expect(pollDeviceToken(t.deps, { deviceCode: old.device_code })).rejects.toMatchObject({
      name: 'DeviceFlowError',
      error: 'expired_token',
    });
    await expect(pollDeviceToken(t.deps, { deviceCode: recent.device_code })).rejects.toMatchObject({
      name: 'DeviceFlowError',
      error: 'authorization_pending',
    });
  });
});

describe('purging expired sign-in records', () => {
  it('deletes expired sessions only', async () => {
    const expiring = await buildUser(t.deps);
    clock.advance(14 * 86_400_000);
    const fresh = await buildUser(t.deps);
    await purgeExpiredIdentityRecordsJob.perform({}, context());
    expect(await t.deps.db.sessions.countDocuments({ userId: expiring.user.id })).toBe(0);
    await expect(authenticateSession(t.deps, fresh.session)).resolves.toMatchObject({ userId: fresh.user.id });
  });
});
