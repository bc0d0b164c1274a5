import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryDoc } from '../../src/core/audit/documents.js';
import { authenticateApiKey } from '../../src/core/auth/api-keys.js';
import { storeLink } from '../../src/core/chat/links.js';
import { buildTenant } from '../support/factories.js';
import { startWorld, SLOW, type PublishingWorld } from '../publishing/support.js';
import { linkTeam, runCommand, startSlackWorld, type SlackWorld } from '../bots/slack-support.js';

// A chat workspace linked to, changed on and unlinked from a Postdeck workspace: each change one audit
// entry, made with the link's key through Slack, naming the person who typed the command.
let w: PublishingWorld;
let s: SlackWorld;
beforeAll(async () => {
  w = await startWorld();
  s = await startSlackWorld(w);
});
afterAll(async () => {
  await s?.close();
  await w?.close();
});

const ANA = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };

function entriesOf(action: AuditEntryDoc['action']): Promise<AuditEntryDoc[]> {
  return w.t.deps.db.audit.find({ workspaceId: w.tenant.workspaceId, action }).sort({ at: 1 }).toArray();
}

describe('chat links in the audit trail', () => {
  it('records the link, each real change of its settings, and the unlink, surface slack', SLOW, async () => {
    await linkTeam(w, s, ANA);
    const link = await w.t.deps.db.chatLinks.findOne({ _id: `slack:${s.team.id}` });
    const bySlack = {
      actor: { type: 'api_key', keyId: link!.apiKeyId, userId: w.tenant.userId },
      chatUser: { platform: 'slack', id: ANA.userId, name: '@ana' },
      surface: 'slack',
      subject: { type: 'chat_link', id: `slack:${s.team.id}` },
    };
    expect(await entriesOf('chat.linked')).toMatchObject([
      { ...bySlack, details: { platform: 'slack', teamId: s.team.id, relinked: false } },
    ]);

    expect(await runCommand(s, 'approvals here', ANA)).toContain('Draft approvals now go to');
    // The same setting again changes nothing, and adds no entry.
    expect(await runCommand(s, 'approvals here', ANA)).toContain('Draft approvals now go to');
    expect(await runCommand(s, 'approvers add <@U0BEN|ben>', ANA)).toContain('U0BEN');
    expect(await entriesOf('chat.link_changed')).toMatchObject([
      { ...bySlack, details: { platform: 'slack', approvalsChannelId: ANA.channelId } },
      { ...bySlack, details: { platform: 'slack', approvers: 'U0ANA,U0BEN' } },
    ]);

    expect(await runCommand(s, 'logout', ANA)).toContain('Unlinked');
    expect(await w.t.deps.db.chatLinks.findOne({ _id: `slack:${s.team.id}` })).toBeNull();
    expect(await entriesOf('chat.unlinked')).toMatchObject([
      { ...bySlack, details: { platform: 'slack', teamId: s.team.id } },
    ]);
    // The logout revoked the link's key: as the person who typed it, not as Postdeck itself.
    const { subject: _subject, ...asAna } = bySlack;
    expect(await entriesOf('api_key.revoked')).toMatchObject([
      { ...asAna, subject: { type: 'api_key', id: link!.apiKeyId } },
    ]);
  });

  it('a relink of the same workspace is its own entry, marked relinked', SLOW, async () => {
    await linkTeam(w, s, ANA);
    await linkTeam(w, s, ANA);
    const linked = await entriesOf('chat.linked');
    expect(linked.map((entry) => entry.details.relinked)).toEqual([false, false, true]);
    expect(new Set(linked.map((entry) => entry._id)).size).toBe(3);
  });

  it('a team linked to another Postdeck workspace leaves an unlink entry in the one it left', SLOW, async () => {
    const other = await buildTenant(w.t.deps);
    const scope = await authenticateApiKey(w.t.deps, other.apiKey);
    const login = {
      _id: 'login-elsewhere',
      platform: 'slack' as const,
      teamId: s.team.id,
      chatUserId: ANA.userId,
      chatUserName: '@ana',
      sealedDeviceCode: '',
      reply: { platform: 'slack' as const, sealed: '' },
      interval: 5,
      expiresAt: new Date(Date.now() + 60_000),
      outcome: null,
      createdAt: new Date(),
    };
    await storeLink(w.t.deps, login, other.apiKey, scope);
    const left = await entriesOf('chat.unlinked');
    expect(left.at(-1)).toMatchObject({ surface: 'slack', details: { relinkedElsewhere: true } });
    const linked = await w.t.deps.db.audit.find({ workspaceId: other.workspaceId, action: 'chat.linked' }).toArray();
    expect(linked).toMatchObject([
      { actor: { type: 'api_key', userId: other.userId }, chatUser: { name: '@ana' }, details: { relinked: false } },
    ]);
  });
});
