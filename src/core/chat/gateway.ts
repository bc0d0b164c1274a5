import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatPlatform } from './documents.js';

/** Where a draft stands, as its card shows it. */
export type CardStatus = 'awaiting' | 'queued' | 'scheduled' | 'published' | 'failed' | 'rejected' | 'gone';

/** The words a card leads with for each status, the same on every chat platform. */
const CARD_HEADLINES: Readonly<Record<Exclude<CardStatus, 'published'>, string>> = {
  awaiting: 'Draft waiting for approval',
  queued: 'Approved: publishing',
  scheduled: 'Scheduled',
  failed: 'Publishing failed',
  rejected: 'Rejected',
  gone: 'Draft deleted',
};

/** The words a card leads with: its status, and the network once it is published there. */
export function cardHeadline(card: Pick<ApprovalCard, 'status' | 'network'>): string {
  if (card.status !== 'published') return CARD_HEADLINES[card.status];
  return card.network ? `Published on ${card.network}` : 'Published';
}

/** Everything an approval card shows; each adapter renders it in its own blocks or embeds. */
export interface ApprovalCard {
  postId: string;
  status: CardStatus;
  caption: string;
  /** Carousel slides' previews in order, or the video's poster (one image). */
  previews: { url: string; alt: string }[];
  kind: 'photo' | 'video';
  /** The network's name ("TikTok", "Instagram"); empty when the account is gone. */
  network: string;
  /** The account as people know it: the network, then its name and handle ("Instagram · Ines (@ines.gram)"). */
  account: string;
  /** Who may see the post, on networks that ask; empty otherwise. */
  privacy: string;
  /** Who or what created the draft ("API key Claude (OAuth)", "generation job …"). */
  author: string;
  /** On a network whose posts take `auto_add_music`: its API cannot add trending music, what Postdeck set instead. */
  musicNote: string;
  scheduledFor: Date | null;
  releaseUrl: string | null;
  /** The words of the link to `releaseUrl` (it opens the emulator's page in emulator mode). */
  releaseLabel: string;
  errorText: string | null;
  /** What people did on it, oldest first; each adapter mentions the person its own way. */
  history: CardHistoryLine[];
}

/** One thing a chat user did on a card: `result` reads after their mention ("approved: publishing now"). */
export interface CardHistoryLine {
  chatUserId: string;
  chatUserName: string;
  result: string;
}

/** How a chat message is addressed: the linked team and the channel. */
export interface CardPlace {
  teamId: string;
  channelId: string;
}

/**
 * What core asks of a chat platform; the Slack and Discord adapters implement it with their own
 * messages. Core decides what to say and when; an adapter only renders and sends.
 */
export interface ChatGateway {
  readonly platform: ChatPlatform;
  /** Posts a new card; answers the message's id (Slack ts, Discord message id). */
  postCard(place: CardPlace, card: ApprovalCard): Promise<string>;
  /** Rewrites a card in place. */
  updateCard(place: CardPlace, messageId: string, card: ApprovalCard): Promise<void>;
  /** Posts under a card (Slack thread, Discord reply). */
  replyToCard(place: CardPlace, messageId: string, text: string): Promise<void>;
  /** Posts a plain message in a channel (a generation that failed). */
  postNotice(place: CardPlace, text: string): Promise<void>;
  /** Tells the person who started a login how it ended, through the reply target they left. */
  replyToLogin(teamId: string, replyTarget: string, text: string): Promise<void>;
}

export type ChatGateways = Partial<Record<ChatPlatform, ChatGateway>>;

/**
 * A raw HTTP endpoint a chat platform calls (Slack events, Discord interactions), which the server
 * mounts untouched: the adapter reads the body itself, because the signature is over the exact bytes.
 */
export interface ChatEndpoint {
  method: 'GET' | 'POST';
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
}
