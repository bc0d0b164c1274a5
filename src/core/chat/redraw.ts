import type { CoreDeps } from '../context.js';
import { buildCard } from './card-model.js';
import type { ChatCardDoc, ChatLinkDoc } from './documents.js';
import type { ApprovalCard, CardPlace, ChatGateway } from './gateway.js';
import { withChatLease } from './refusal.js';

/** A card just redrawn: what it shows now, and where, for a caller that posts more under it. */
export interface RedrawnCard {
  card: ChatCardDoc;
  link: ChatLinkDoc;
  gateway: ChatGateway;
  place: CardPlace;
  view: ApprovalCard;
}

/**
 * Redraws the card `cardId` as its post now stands, holding the card's lease; `then` runs under
 * the same lease. Nothing happens when the card, its link or its platform's bot is gone.
 */
export async function redrawCard(
  deps: CoreDeps,
  cardId: string,
  then: (redrawn: RedrawnCard) => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  await withChatLease(deps, `chat-card:${cardId}`, async () => {
    const card = await deps.db.chatCards.findOne({ _id: cardId });
    const link = card && (await deps.db.chatLinks.findOne({ _id: card.linkId }));
    const gateway = link && deps.chat[link.platform];
    if (!card || !link || !gateway) return;
    const place = { teamId: link.teamId, channelId: card.channelId };
    const view = await buildCard(deps, card.postId, card);
    await gateway.updateCard(place, card.messageId, view);
    await then({ card, link, gateway, place, view });
  });
}

/**
 * After someone acted on a draft in one chat, redraws its cards in every other chat (Slack and
 * Discord, each linked workspace), so none keeps offering buttons on a draft that is no longer
 * waiting. Called after the acting card's lease is released: two people acting at once in two
 * chats would otherwise each hold one card and wait for the other's. A card that cannot be
 * redrawn now is logged; the action stands, and the post's next event redraws it again.
 */
export async function redrawOtherCards(deps: CoreDeps, workspaceId: string, postId: string, cardId: string) {
  const others = await deps.db.chatCards
    .find({ postId, workspaceId, _id: { $ne: cardId } }, { projection: { _id: 1 } })
    .toArray();
  for (const { _id } of others) {
    try {
      await redrawCard(deps, _id);
    } catch (error) {
      deps.logger.warn({ err: error, cardId: _id }, 'could not redraw the card of a draft acted on in another chat');
    }
  }
}
