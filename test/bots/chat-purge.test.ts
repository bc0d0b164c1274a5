import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginPollLeaseKey } from '../../src/core/chat/login.js';
import { purgeChatRecords } from '../../src/core/chat/purge-job.js';
import type { ChatCardActionDoc, ChatLoginDoc } from '../../src/core/chat/documents.js';
import { cardActionLeaseKey } from '../../src/core/chat/recorded-actions.js';
import { claimLease } from '../../src/core/db/leases.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

const DAY = 24 * 60 * 60_000;

/** A login that ended `ageMs` ago, polled three times (three generations of its poll lease). */
async function polledLogin(id: string, ageMs: number): Promise<void> {
  const expiresAt = new Date(Date.now() - ageMs);
  const login: ChatLoginDoc = {
    _id: id,
    platform: 'slack',
    teamId: 'T0',
    chatUserId: 'U0',
    sealedDeviceCode: 'sealed',
    reply: { platform: 'slack', sealed: 'sealed' },
    interval: 5,
    expiresAt,
    outcome: 'expired',
    createdAt: new Date(expiresAt.getTime() - 15 * 60_000),
  };
  await t.deps.db.chatLogins.insertOne(login);
  for (let i = 0; i < 3; i++) {
    const now = new Date(login.createdAt.getTime() + i * 5_000);
    expect(await claimLease(t.deps.db, loginPollLeaseKey(id), { ttlMs: 4_000, now })).not.toBeNull();
  }
}

describe('the chat records purge', () => {
  it('forgets logins ended over a day ago with every generation of their poll lease, and expired deliveries', async () => {
    await polledLogin('login-old', 2 * DAY);
    await polledLogin('login-recent', 60_000);
    await t.deps.db.chatDeliveries.insertMany([
      { _id: 'slack:T0:expired', expiresAt: new Date(Date.now() - 1_000) },
      { _id: 'slack:T0:live', expiresAt: new Date(Date.now() + 60_000) },
    ]);
    const hint = (id: string) =>
      t.db.collection('position_hints').countDocuments({ _id: `lease:${loginPollLeaseKey(id)}` as never });
    expect(await hint('login-old')).toBe(1);

    await purgeChatRecords(t.deps);
    expect((await t.deps.db.chatLogins.find().toArray()).map((doc) => doc._id)).toEqual(['login-recent']);
    expect(await t.deps.db.leases.countDocuments({ key: loginPollLeaseKey('login-old') })).toBe(0);
    expect(await hint('login-old')).toBe(0);
    expect(await t.deps.db.leases.countDocuments({ key: loginPollLeaseKey('login-recent') })).toBe(3);
    expect((await t.deps.db.chatDeliveries.find().toArray()).map((doc) => doc._id)).toEqual(['slack:T0:live']);
  });

  it('forgets card clicks ended over a day ago with their claims, and keeps pending and recent ones', async () => {
    const click = (id: string, state: ChatCardActionDoc['state'], endedAgoMs: number | null): ChatCardActionDoc => ({
      _id: id,
      actor: { platform: 'slack', teamId: 'T0', chatUserId: 'U0', chatUserName: 'ana', postId: 'p1' },
      action: { type: 'approve' },
      place: { teamId: 'T0', channelId: 'C0' },
      messageId: '1.0',
      state,
      claimedUntil: new Date(Date.now() - 2 * DAY),
      createdAt: new Date(Date.now() - 2 * DAY),
      endedAt: endedAgoMs === null ? null : new Date(Date.now() - endedAgoMs),
    });
    await t.deps.db.chatCardActions.insertMany([
      click('slack:T0:done-old', 'done', 2 * DAY),
      click('slack:T0:expired-old', 'expired', 2 * DAY),
      click('slack:T0:done-recent', 'done', 60_000),
      click('slack:T0:pending', 'pending', null),
    ]);
    expect(await claimLease(t.deps.db, cardActionLeaseKey('slack:T0:done-old'), { ttlMs: 1_000 })).not.toBeNull();

    await purgeChatRecords(t.deps);
    const left = (await t.deps.db.chatCardActions.find().toArray()).map((doc) => doc._id).sort();
    expect(left).toEqual(['slack:T0:done-recent', 'slack:T0:pending']);
    expect(await t.deps.db.leases.countDocuments({ key: cardActionLeaseKey('slack:T0:done-old') })).toBe(0);
  });
});
