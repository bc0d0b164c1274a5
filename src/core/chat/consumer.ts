import type { CoreDeps } from '../context.js';
import type { DomainEvent } from '../events/documents.js';
import type { EventConsumer } from '../events/deliver.js';
import { claimLease } from '../db/leases.js';
import { isDuplicateKeyError } from '../errors.js';
import { milestoneOf, milestoneSnapshot, milestoneText } from '../insights/milestones.js';
import { buildCard, describeAuthor } from './card-model.js';
import type { ChatCardDoc, ChatLinkDoc } from './documents.js';
import type { ChatGateways } from './gateway.js';
import { redrawCard } from './redraw.js';
import { withChatLease } from './refusal.js';

/**
 * Puts drafts in front of approvers and keeps their cards current: a card per linked chat with an
 * approvals channel when a draft is created, the card redrawn and the post's link posted under it
 * when it is published or fails, a notice when a generation fails, and the post's counts under it at
 * 24 hours and 7 days. Idempotent per chat: a card is posted once (its record's `_id`), a notice once
 * (a receipt per chat), a post's counts once per card and age (a receipt per card).
 */
export const chatApprovalsConsumer: EventConsumer = {
  name: 'chat-approvals',
  async handle(deps, event) {
    const gateways = deps.chat;
    switch (event.type) {
      case 'draft.created':
        return postCards(deps, gateways, event);
      case 'post.published':
      case 'post.failed':
        return refreshCards(deps, event);
      case 'generation.failed':
        return postNotices(deps, gateways, event);
      case 'generation.done':
        return; // its drafts have their own cards
      case 'post.metrics_24h':
      case 'post.metrics_7d':
        return replyCounts(deps, gateways, event);
    }
  },
};

async function postCards(deps: CoreDeps, gateways: ChatGateways, event: DomainEvent): Promise<void> {
  const post = await deps.db.posts.findOne({ _id: event.subjectId });
  if (!post || post.state !== 'DRAFT') return;
  const author = await describeAuthor(deps, event);
  for (const link of await approvalLinks(deps, event.workspaceId)) {
    const gateway = gateways[link.platform];
    if (!gateway || !link.approvalsChannelId) continue;
    const cardId = `${link._id}:${post._id}`;
    if (await deps.db.chatCards.findOne({ _id: cardId }, { projection: { _id: 1 } })) continue;
    // Whoever posts the card holds this for a minute; if they die, the retried delivery posts it.
    if (!(await claimLease(deps.db, `chat-card-post:${cardId}`, { ttlMs: 60_000 }))) {
      throw new Error(`the card ${cardId} is being posted by another worker`);
    }
    const card: Omit<ChatCardDoc, 'messageId'> = {
      _id: cardId,
      linkId: link._id,
      postId: post._id,
      workspaceId: post.workspaceId,
      channelId: link.approvalsChannelId,
      author,
      editedContent: null,
      actions: [],
      linkPostedAt: null,
      createdAt: deps.now(),
    };
    const place = { teamId: link.teamId, channelId: link.approvalsChannelId };
    const messageId = await gateway.postCard(place, await buildCard(deps, post._id, card));
    await deps.db.chatCards.insertOne({ ...card, messageId });
  }
}

async function refreshCards(deps: CoreDeps, event: DomainEvent): Promise<void> {
  const cards = await deps.db.chatCards.find({ postId: event.subjectId, workspaceId: event.workspaceId }).toArray();
  for (const { _id } of cards) {
    await redrawCard(deps, _id, async ({ card, gateway, place, view }) => {
      if (event.type === 'post.published' && card.linkPostedAt === null) {
        const network = view.network || 'the network';
        const where = view.releaseUrl ? `: ${view.releaseUrl}` : ` (${network} has not released its link yet).`;
        await gateway.replyToCard(place, card.messageId, `Published on ${network}${where}`);
        await deps.db.chatCards.updateOne({ _id }, { $set: { linkPostedAt: deps.now() } });
      }
    });
  }
}

/** The post's counts at a milestone, one reply under each of its cards. */
async function replyCounts(deps: CoreDeps, gateways: ChatGateways, event: DomainEvent): Promise<void> {
  const milestone = milestoneOf(event.type);
  const found = milestone && (await milestoneSnapshot(deps, event.subjectId, event.workspaceId, milestone));
  if (!milestone || !found) return;
  const text = milestoneText(milestone, found);
  const cards = await deps.db.chatCards.find({ postId: event.subjectId, workspaceId: event.workspaceId }).toArray();
  for (const card of cards) {
    const receiptId = `chat-counts:${event.id}:${card._id}`;
    await withChatLease(deps, `chat-card:${card._id}`, async () => {
      if (await deps.db.eventReceipts.findOne({ _id: receiptId })) return;
      const link = await deps.db.chatLinks.findOne({ _id: card.linkId });
      const gateway = link && gateways[link.platform];
      if (!link || !gateway) return;
      await gateway.replyToCard({ teamId: link.teamId, channelId: card.channelId }, card.messageId, text);
      try {
        await deps.db.eventReceipts.insertOne({ _id: receiptId, at: deps.now() });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    });
  }
}

async function postNotices(deps: CoreDeps, gateways: ChatGateways, event: DomainEvent): Promise<void> {
  const job = await deps.db.generationJobs.findOne({ _id: event.subjectId });
  const text = `Slideshow generation ${event.subjectId} failed: ${job?.error ?? 'no reason was recorded'}`;
  for (const link of await approvalLinks(deps, event.workspaceId)) {
    const gateway = gateways[link.platform];
    if (!gateway || !link.approvalsChannelId) continue;
    const receiptId = `chat-notice:${event.id}:${link._id}`;
    if (await deps.db.eventReceipts.findOne({ _id: receiptId })) continue;
    if (!(await claimLease(deps.db, receiptId, { ttlMs: 60_000 }))) {
      throw new Error(`the notice ${receiptId} is being posted by another worker`);
    }
    await gateway.postNotice({ teamId: link.teamId, channelId: link.approvalsChannelId }, text);
    try {
      await deps.db.eventReceipts.insertOne({ _id: receiptId, at: deps.now() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
}

/** The workspace's chats that have an approvals channel. */
async function approvalLinks(deps: CoreDeps, workspaceId: string): Promise<ChatLinkDoc[]> {
  return deps.db.chatLinks.find({ workspaceId, approvalsChannelId: { $ne: null } }).toArray();
}
