import { describe, expect, it } from 'vitest';
import { mintApiKey, authenticateApiKey } from '../../src/core/auth/api-keys.js';
import {
  acceptInvitation,
  createInvitation,
  listInvitations,
  revokeInvitation,
} from '../../src/core/identity/invitations.js';
import { listMembers, listWorkspacesForUser, requireMembership } from '../../src/core/identity/memberships.js';
import { useTestServer } from '../support/http.js';
import { buildUser, postJson, readResponse, testClock } from '../support/identity.js';

const clock = testClock();
const { t, server } = await useTestServer({ clock }); // sign-up closed: only invitations get people in

const password = 'correct horse battery';

describe('invitations', () => {
  it('let an invited person sign up into the workspace, once', async () => {
    const owner = await buildUser(t.deps);
    const { token, invitation } = await createInvitation(t.deps, owner.scope, { role: 'member' });
    expect(token).toMatch(/^pdi_/);
    expect(await listInvitations(t.deps, owner.scope)).toEqual([invitation]);
    expect(JSON.stringify(await t.deps.db.invitations.find().toArray())).not.toContain(token.slice(4));

    const joined = await readResponse(
      await postJson(server, '/auth/signup', {
        email: 'invitee@example.test',
        password,
        name: 'Invitee',
        invitation: token,
      }),
    );
    expect(joined).toMatchObject({ status: 201, body: { workspaceId: owner.workspaceId } });
    const members = await listMembers(t.deps, owner.scope);
    expect(members.map((m) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      ['invitee@example.test', 'member'],
    ]);
    expect(await listInvitations(t.deps, owner.scope)).toEqual([]);

    const reused = await readResponse(
      await postJson(server, '/auth/signup', {
        email: 'second@example.test',
        password,
        name: 'Second',
        invitation: token,
      }),
    );
    expect(reused).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await t.deps.db.userEmails.countDocuments({ _id: 'second@example.test' })).toBe(0);
  });

  it('are single use when several people race with one link', async () => {
    const owner = await buildUser(t.deps);
    const { token } = await createInvitation(t.deps, owner.scope, { role: 'member' });
    const people = await Promise.all(Array.from({ length: 8 }, () => buildUser(t.deps)));
    const results = await Promise.allSettled(people.map((p) => acceptInvitation(t.deps, { token, userId: p.user.id })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await t.deps.db.memberships.countDocuments({ workspaceId: owner.workspaceId })).toBe(2);
  });

  it('let an existing user join; the workspace then shows up in their list', async () => {
    const owner = await buildUser(t.deps);
    const user = await buildUser(t.deps);
    const { token } = await createInvitation(t.deps, owner.scope, { role: 'owner' });
    expect(await acceptInvitation(t.deps, { token, userId: user.user.id })).toMatchObject({
      workspaceId: owner.workspaceId,
      role: 'owner',
    });
    const ids = (await listWorkspacesForUser(t.deps, user.user.id)).map((w) => w.workspaceId).sort();
    expect(ids).toEqual([owner.workspaceId, user.workspaceId].sort());
    await expect(requireMembership(t.deps, user.user.id, owner.workspaceId)).resolves.toMatchObject({
      workspaceId: owner.workspaceId,
      actor: { type: 'user', userId: user.user.id },
    });
  });

  it('can be bound to one email address (case-insensitively)', async () => {
    const owner = await buildUser(t.deps);
    const { token } = await createInvitation(t.deps, owner.scope, { email: 'Bound@Example.test', role: 'member' });
    const other = await postJson(server, '/auth/signup', {
      email: 'other@example.test',
      password,
      name: 'O',
      invitation: token,
    });
    expect(await readResponse(other)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    const bound = await postJson(server, '/auth/signup', {
      email: 'BOUND@example.test',
      password,
      name: 'B',
      invitation: token,
    });
    expect(bound.status).toBe(201);
  });

  it('may be created and revoked by owners only', async () => {
    const owner = await buildUser(t.deps);
    const member = await buildUser(t.deps);
    const { token } = await createInvitation(t.deps, owner.scope, { role: 'member' });
    await acceptInvitation(t.deps, { token, userId: member.user.id });
    const memberScope = await requireMembership(t.deps, member.user.id, owner.workspaceId);
    await expect(createInvitation(t.deps, memberScope, { role: 'member' })).rejects.toMatchObject({
      code: 'forbidden',
    });

    const { apiKey } = await mintApiKey(t.deps, { ...owner.scope, userId: owner.user.id, name: 'k' });
    const keyScope = await authenticateApiKey(t.deps, apiKey);
    await expect(createInvitation(t.deps, keyScope, { role: 'member' })).rejects.toMatchObject({ code: 'forbidden' });

    const open = await createInvitation(t.deps, owner.scope, { role: 'member' });
    await expect(revokeInvitation(t.deps, memberScope, open.invitation.id)).rejects.toMatchObject({
      code: 'forbidden',
    });
    await revokeInvitation(t.deps, owner.scope, open.invitation.id);
    await expect(acceptInvitation(t.deps, { token: open.token, userId: member.user.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('expire after 7 days', async () => {
    const owner = await buildUser(t.deps);
    const user = await buildUser(t.deps);
    const { token } = await createInvitation(t.deps, owner.scope, { role: 'member' });
    clock.advance(7 * 86_400_000);
    await expect(acceptInvitation(t.deps, { token, userId: user.user.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('refuse someone who is already a member', async () => {
    const owner = await buildUser(t.deps);
    const { token } = await createInvitation(t.deps, owner.scope, { role: 'member' });
    await expect(acceptInvitation(t.deps, { token, userId: owner.user.id })).rejects.toMatchObject({
      code: 'conflict',
    });
  });
});
