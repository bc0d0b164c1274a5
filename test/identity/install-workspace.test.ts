import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/auth/api-keys.js';
import { signUp } from '../../src/core/identity/sign-up.js';
import { bootstrapTenant } from '../../src/core/tenancy/bootstrap.js';
import { openTestDatabase } from '../support/db.js';

// `admin bootstrap` and the first sign-up, in either order, end in one workspace the owner can open.
const owner = { email: 'owner@example.test', password: 'a long enough password', name: 'Olga' };

describe("the install's workspace", () => {
  it('is the one a script made first: the first person to sign up takes it over, keys and all', async () => {
    const t = await openTestDatabase();
    try {
      const scripted = await bootstrapTenant(t.deps, {});
      expect((await t.deps.db.workspaces.findOne({ _id: scripted.workspaceId }))?.name).toBe('Default');
      const signedUp = await signUp(t.deps, owner, { openSignup: false });
      expect(signedUp).toMatchObject({ workspaceId: scripted.workspaceId, role: 'owner', via: 'first_owner' });
      expect(await t.deps.db.workspaces.countDocuments({})).toBe(1);
      expect((await authenticateApiKey(t.deps, scripted.apiKey)).workspaceId).toBe(scripted.workspaceId);
      const again = await bootstrapTenant(t.deps, {});
      expect(again).toMatchObject({ workspaceId: scripted.workspaceId, userId: signedUp.user.id });
    } finally {
      await t.close();
    }
  });

  it("is the first owner's when they signed up first: bootstrap makes no workspace no one can open", async () => {
    const t = await openTestDatabase();
    try {
      const signedUp = await signUp(t.deps, owner, { openSignup: false });
      const key = await bootstrapTenant(t.deps, {});
      expect(key).toMatchObject({ workspaceId: signedUp.workspaceId, userId: signedUp.user.id });
      expect(await t.deps.db.workspaces.countDocuments({})).toBe(1);
      // A named workspace is still made on request, as before.
      const named = await bootstrapTenant(t.deps, { workspaceName: 'CI' });
      expect(named.workspaceId).not.toBe(signedUp.workspaceId);
    } finally {
      await t.close();
    }
  });
});
