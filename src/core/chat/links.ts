import type { CoreDeps, Scope } from '../context.js';
import { authenticateApiKey, revokeApiKey } from '../auth/api-keys.js';
import { AppError } from '../errors.js';
import type { ChatLinkDoc, ChatLoginDoc, ChatPlatform } from './documents.js';
import { auditLinkChange, changedSettings, linkPersonScope, type ChatPerson, type LinkSettings } from './link-audit.js';
import { ChatRefusal, withChatLease } from './refusal.js';

export function linkIdOf(platform: ChatPlatform, teamId: string): string {
  return `${platform}:${teamId}`;
}

/** The team's link, or a refusal telling the person to log in first. */
export async function requireLink(deps: CoreDeps, platform: ChatPlatform, teamId: string): Promise<ChatLinkDoc> {
  const link = await deps.db.chatLinks.findOne({ _id: linkIdOf(platform, teamId) });
  if (!link) {
    throw new ChatRefusal('not_linked', 'This workspace is not linked to Postdeck yet. Run `/postdeck login` first.');
  }
  return link;
}

/** The scope the bot acts in: its key's. A revoked key is a refusal that says how to link again. */
export async function actingScope(deps: CoreDeps, link: ChatLinkDoc): Promise<Scope> {
  try {
    const scope = await authenticateApiKey(deps, deps.secrets.open(link.sealedApiKey));
    return { ...scope, surface: link.platform };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new ChatRefusal(
      'link_revoked',
      "Postdeck's key for this workspace was revoked. Run `/postdeck login` to link it again.",
    );
  }
}

/** Refuses anyone who is not one of the link's approvers. */
export function requireApprover(link: ChatLinkDoc, chatUserId: string): void {
  if (!link.approvers.includes(chatUserId)) {
    throw new ChatRefusal(
      'not_an_approver',
      "You are not one of this workspace's Postdeck approvers, so nothing was changed. An approver can add you with `/postdeck approvers add`.",
    );
  }
}

/**
 * Stores the link a login made. A team linked before keeps its channel, approvers and time zone,
 * and the key it had is revoked: one live key per chat workspace.
 */
export async function storeLink(deps: CoreDeps, login: ChatLoginDoc, apiKey: string, scope: Scope): Promise<void> {
  const id = linkIdOf(login.platform, login.teamId);
  if (scope.actor.type !== 'api_key') throw new Error('a device login always mints an API key');
  const { keyId, userId } = scope.actor;
  await withChatLease(deps, `chat-link:${id}`, async () => {
    const now = deps.now();
    const previous = await deps.db.chatLinks.findOne({ _id: id });
    const kept = previous?.workspaceId === scope.workspaceId ? previous : null;
    const link: ChatLinkDoc = {
      _id: id,
      platform: login.platform,
      teamId: login.teamId,
      workspaceId: scope.workspaceId,
      apiKeyId: keyId,
      sealedApiKey: deps.secrets.seal(apiKey),
      linkedByUserId: userId,
      linkedByChatUserId: login.chatUserId,
      approvalsChannelId: kept?.approvalsChannelId ?? null,
      approvers: [...new Set([login.chatUserId, ...(kept?.approvers ?? [])])],
      timeZone: kept?.timeZone ?? 'UTC',
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
    await deps.db.chatLinks.replaceOne({ _id: id }, link, { upsert: true });
    const person = { id: login.chatUserId, name: login.chatUserName ?? login.chatUserId };
    if (previous) await revokeQuietly(deps, previous, person);
    // Linked to another workspace: the one it leaves sees it go.
    if (previous && !kept) await auditLinkChange(deps, previous, person, 'chat.unlinked', { relinkedElsewhere: true });
    await auditLinkChange(deps, link, person, 'chat.linked', { relinked: kept !== null });
  });
}

/** Unlinks the team: its key is revoked, then the link forgotten (cards stay as they are). */
export async function unlink(deps: CoreDeps, link: ChatLinkDoc, person: ChatPerson): Promise<void> {
  requireApprover(link, person.id);
  await withChatLease(deps, `chat-link:${link._id}`, async () => {
    await revokeQuietly(deps, link, person);
    const removed = await deps.db.chatLinks.deleteOne({ _id: link._id });
    if (removed.deletedCount > 0) await auditLinkChange(deps, link, person, 'chat.unlinked');
  });
}

/** Changes the link's settings (approvals channel, approvers, time zone), for approvers only. */
export async function changeLink(
  deps: CoreDeps,
  link: ChatLinkDoc,
  person: ChatPerson,
  change: (current: ChatLinkDoc) => Partial<LinkSettings>,
): Promise<ChatLinkDoc> {
  requireApprover(link, person.id);
  return withChatLease(deps, `chat-link:${link._id}`, async () => {
    const current = await requireLink(deps, link.platform, link.teamId);
    const changes = { ...change(current), updatedAt: deps.now() };
    await deps.db.chatLinks.updateOne({ _id: link._id }, { $set: changes });
    const changed = { ...current, ...changes };
    // Setting what is already set changes nothing, and is not audited.
    const details = changedSettings(current, changed);
    if (Object.keys(details).length > 0) await auditLinkChange(deps, current, person, 'chat.link_changed', details);
    return changed;
  });
}

/** Adds or removes one approver, for approvers only; the last approver cannot be removed. Answers the list. */
export async function changeApprovers(
  deps: CoreDeps,
  link: ChatLinkDoc,
  person: ChatPerson,
  change: { op: 'add' | 'remove'; userId: string },
): Promise<string[]> {
  const changed = await changeLink(deps, link, person, (current) => {
    const approvers =
      change.op === 'add'
        ? [...new Set([...current.approvers, change.userId])]
        : current.approvers.filter((id) => id !== change.userId);
    if (approvers.length === 0) {
      throw new ChatRefusal('bad_input', 'That would leave no approvers; add someone else first.');
    }
    return { approvers };
  });
  return changed.approvers;
}

/** Revokes the link's key, as the person whose command (logout, a login elsewhere) ended the link. */
async function revokeQuietly(deps: CoreDeps, link: ChatLinkDoc, person: ChatPerson): Promise<void> {
  try {
    await revokeApiKey(deps, linkPersonScope(link, person), link.apiKeyId);
  } catch (error) {
    // Already gone with its workspace: nothing left to revoke.
    if (!(error instanceof AppError && error.code === 'not_found')) throw error;
  }
}
