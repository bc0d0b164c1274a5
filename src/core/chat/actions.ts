import type { CoreDeps, Scope } from '../context.js';
import { AppError } from '../errors.js';
import { invokeOperation } from '../operations/invoke.js';
import { deletePostGroup } from '../posts/delete-post.js';
import { publishPostOperation } from '../posts/operations.js';
import { buildCard } from './card-model.js';
import type { CardAction, CardActionDoc, CardActor, ChatCardDoc } from './documents.js';
import type { ApprovalCard } from './gateway.js';
import { actingScope, linkIdOf, requireApprover, requireLink } from './links.js';
import { redrawOtherCards } from './redraw.js';
import { ChatRefusal, withChatLease } from './refusal.js';

/** The longest caption accepted in chat (TikTok's photo description limit); publishing checks the rest. */
export const MAX_CHAT_CAPTION = 4000;

// Stored with a recorded click (ChatCardActionDoc), so declared with the documents.
export type { CardAction, CardActor } from './documents.js';

/**
 * What an approver does on a card: approve (publish now), schedule, edit the caption, reject (delete
 * the draft). Done with the link's key, one card change at a time; the post's own leases and states
 * make double clicks and two approvers at once publish once: the later one is refused in words.
 * Answers the card as it now stands, for the adapter to redraw in place; the draft's cards in
 * other chats are redrawn here.
 */
export async function actOnCard(deps: CoreDeps, who: CardActor, action: CardAction): Promise<ApprovalCard> {
  const link = await requireLink(deps, who.platform, who.teamId);
  requireApprover(link, who.chatUserId);
  const chatUser = { platform: who.platform, id: who.chatUserId, name: who.chatUserName };
  const scope: Scope = { ...(await actingScope(deps, link)), chatUser };
  const cardId = `${linkIdOf(who.platform, who.teamId)}:${who.postId}`;
  const redrawn = await withChatLease(deps, `chat-card:${cardId}`, async () => {
    const card = await deps.db.chatCards.findOne({ _id: cardId, workspaceId: scope.workspaceId });
    if (!card) throw new ChatRefusal('already_handled', 'This card is no longer tracked by Postdeck.');
    const result = await perform(deps, scope, card, action);
    const record: CardActionDoc = {
      chatUserId: who.chatUserId,
      chatUserName: who.chatUserName,
      action: action.type,
      at: deps.now(),
      result,
    };
    const editedContent = action.type === 'edit' ? action.content : card.editedContent;
    await deps.db.chatCards.updateOne({ _id: cardId }, { $set: { editedContent }, $push: { actions: record } });
    return buildCard(deps, who.postId, { ...card, editedContent, actions: [...card.actions, record] });
  });
  // An edit stays on this card until it is approved here: the draft itself has not changed.
  if (action.type !== 'edit') await redrawOtherCards(deps, scope.workspaceId, who.postId, cardId);
  return redrawn;
}

async function perform(deps: CoreDeps, scope: Scope, card: ChatCardDoc, action: CardAction): Promise<string> {
  const content = card.editedContent ?? undefined;
  try {
    switch (action.type) {
      case 'approve':
        await invokeOperation(deps, scope, publishPostOperation, {
          id: card.postId,
          mode: 'now',
          ...(content ? { content } : {}),
        });
        return 'approved: publishing now';
      case 'schedule': {
        const at = action.at.toISOString();
        await invokeOperation(deps, scope, publishPostOperation, {
          id: card.postId,
          mode: 'schedule',
          scheduledFor: at,
          ...(content ? { content } : {}),
        });
        return `scheduled it for ${at.replace('T', ' ').slice(0, 16)} UTC`;
      }
      case 'edit':
        await requireDraft(deps, card.postId);
        return 'edited the caption';
      case 'reject':
        // delete_post deletes a post in any state; a card rejects only a draft, so the use case itself.
        await deletePostGroup(deps, scope, card.postId, { rejection: true });
        return 'rejected it: the draft was deleted';
    }
  } catch (error) {
    throw asRefusal(error);
  }
}

async function requireDraft(deps: CoreDeps, postId: string): Promise<void> {
  const post = await deps.db.posts.findOne({ _id: postId }, { projection: { state: 1 } });
  if (!post) throw new AppError('not_found', 'Post not found');
  if (post.state !== 'DRAFT')
    throw new AppError('not_a_draft', `Only a draft can be edited; this post is ${post.state}.`);
}

/** A core refusal, in words for the person who clicked; anything else stays an internal failure. */
function asRefusal(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  switch (error.code) {
    case 'not_a_draft':
    case 'conflict':
      return new ChatRefusal('already_handled', `Someone got there first: ${error.message}`);
    case 'not_found':
      return new ChatRefusal('already_handled', 'This draft no longer exists (it was rejected or deleted).');
    default:
      return new ChatRefusal('bad_input', error.message);
  }
}
