import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureIndexes } from '../../src/core/db/collections.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(async () => {
  await t.close();
});

describe('ensureIndexes', () => {
  it('can run again on a database that already has every index (each restart does)', async () => {
    await ensureIndexes(t.db);
    await ensureIndexes(t.db);
    const names = (await t.db.collection('api_keys').indexes()).map((index) => index.name);
    expect(names).toEqual(expect.arrayContaining(['_id_', 'hash_1', 'workspaceId_1']));
  });

  it('enforces the unique indexes it declares', async () => {
    const doc = { workspaceId: 'w', userId: 'u', role: 'owner' as const, createdAt: new Date() };
    await t.deps.db.memberships.insertOne({ _id: 'm1', ...doc });
    await expect(t.deps.db.memberships.insertOne({ _id: 'm2', ...doc })).rejects.toMatchObject({ code: 11000 });
  });
});
