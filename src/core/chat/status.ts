import type { CoreDeps } from '../context.js';
import type { ChatPlatform } from './documents.js';
import { actingScope, linkIdOf } from './links.js';
import { ChatRefusal } from './refusal.js';

/** What `/postdeck status` reports. */
export type ChatStatus =
  | { linked: false }
  | {
      linked: true;
      workspaceName: string;
      keyWorks: boolean;
      approvalsChannelId: string | null;
      approvers: string[];
      timeZone: string;
    };

export async function chatStatus(deps: CoreDeps, platform: ChatPlatform, teamId: string): Promise<ChatStatus> {
  const link = await deps.db.chatLinks.findOne({ _id: linkIdOf(platform, teamId) });
  if (!link) return { linked: false };
  let keyWorks = true;
  try {
    await actingScope(deps, link);
  } catch (error) {
    if (!(error instanceof ChatRefusal)) throw error;
    keyWorks = false;
  }
  const workspace = await deps.db.workspaces.findOne({ _id: link.workspaceId }, { projection: { name: 1 } });
  return {
    linked: true,
    workspaceName: workspace?.name ?? link.workspaceId,
    keyWorks,
    approvalsChannelId: link.approvalsChannelId,
    approvers: link.approvers,
    timeZone: link.timeZone,
  };
}

/**
 * What `/postdeck status` says about the link's key, tried just now (README: "whether its key still
 * works"); the same words on every platform.
 */
export function keyStatusText(keyWorks: boolean): string {
  return keyWorks
    ? 'Its key works: Postdeck accepted it just now.'
    : 'Its key no longer works: Postdeck refused it, so it was revoked. Run `/postdeck login` to link again.';
}

/** A card's caption as it now reads (edited in chat or the draft's own), for the Edit form. */
export async function currentCaption(
  deps: CoreDeps,
  platform: ChatPlatform,
  teamId: string,
  postId: string,
): Promise<string> {
  const card = await deps.db.chatCards.findOne({ _id: `${linkIdOf(platform, teamId)}:${postId}` });
  if (card?.editedContent) return card.editedContent;
  const post = await deps.db.posts.findOne({ _id: postId }, { projection: { content: 1 } });
  return post?.content ?? '';
}
