// Stored documents of the chat bots (Slack, Discord): linked chat workspaces, logins, approval cards.

export type ChatPlatform = 'slack' | 'discord';

/** What an approver does on a card (src/core/chat/actions.ts). */
export type CardAction =
  { type: 'approve' } | { type: 'schedule'; at: Date } | { type: 'edit'; content: string } | { type: 'reject' };

/** Who clicked, in which chat workspace, on which draft's card. */
export interface CardActor {
  platform: ChatPlatform;
  teamId: string;
  chatUserId: string;
  chatUserName: string;
  postId: string;
}

/**
 * A chat workspace (Slack team, Discord guild) linked to a Postdeck workspace through a device login.
 * `_id` = `<platform>:<team id>`. The API key the login minted is kept sealed (SecretBox); the bot acts
 * with it, so everything it does is scoped and revocable like any key.
 */
export interface ChatLinkDoc {
  _id: string;
  platform: ChatPlatform;
  teamId: string;
  workspaceId: string;
  apiKeyId: string;
  sealedApiKey: string;
  /** The Postdeck member who approved the login; chat approvers act as them. */
  linkedByUserId: string | null;
  /** The chat user who ran the login. */
  linkedByChatUserId: string;
  /** Where approval cards go; none until `/postdeck approvals here`. */
  approvalsChannelId: string | null;
  /** Chat user ids allowed to approve, schedule, edit and reject (the linking user first). */
  approvers: string[];
  /** The IANA time zone in which typed schedule times are read (Discord has no date picker). */
  timeZone: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Where a login's outcome is told: a reply the adapter knows how to send (Slack response_url, Discord token). */
export interface ChatReplyTarget {
  platform: ChatPlatform;
  /** Sealed: a response URL or an interaction token is a credential for that one reply. */
  sealed: string;
}

/** A device login a chat user started; polled by a job until it ends. `_id` = uuid. */
export interface ChatLoginDoc {
  _id: string;
  platform: ChatPlatform;
  teamId: string;
  chatUserId: string;
  /** How the platform names them (`@ana`), for the audit trail; absent on logins stored before it was kept. */
  chatUserName?: string;
  sealedDeviceCode: string;
  reply: ChatReplyTarget;
  /** Seconds between polls, grown by 5 on each slow_down (RFC 8628 section 3.5). */
  interval: number;
  expiresAt: Date;
  /** How it ended; null while it is being polled. */
  outcome: 'linked' | 'denied' | 'expired' | null;
  createdAt: Date;
}

/** One thing a person did on a card, shown on it. */
export interface CardActionDoc {
  chatUserId: string;
  chatUserName: string;
  action: 'approve' | 'schedule' | 'edit' | 'reject';
  at: Date;
  /** What came of it, in words ("queued for now", "caption changed"). */
  result: string;
}

/**
 * The approval card of one draft in one linked chat (`_id` = `<link id>:<post id>`). Written only
 * under the lease `chat-card:<_id>`, so two approvers' writes never interleave (FerretDB rewrites
 * whole documents).
 */
export interface ChatCardDoc {
  _id: string;
  linkId: string;
  postId: string;
  workspaceId: string;
  channelId: string;
  /** The message: Slack's `ts`, Discord's message id. */
  messageId: string;
  /** Who or what created the draft, in words (from its event). */
  author: string;
  /** A caption edited in chat, used when the draft is approved or scheduled. */
  editedContent: string | null;
  actions: CardActionDoc[];
  /** Set once the published link was posted in the card's thread. */
  linkPostedAt: Date | null;
  createdAt: Date;
}

/**
 * A card click (Approve, Schedule, Edit, Reject) recorded before it is acknowledged, so it survives
 * the process that acknowledged it (`_id` = the delivery id: `slack:<team>:<trigger>`,
 * `discord:<interaction id>`; a redelivery is the same document). The acknowledging process carries
 * it out at once; past `claimedUntil` the worker's recovery job does (src/core/chat/action-recovery.ts).
 */
export interface ChatCardActionDoc {
  _id: string;
  actor: CardActor;
  action: CardAction;
  /** Where the card is (a CardPlace), for redrawing it or replying under it. */
  place: { teamId: string; channelId: string };
  messageId: string;
  state: 'pending' | 'done' | 'expired';
  /** Until when the acknowledging process is trusted to be on it; then recovery may take it. */
  claimedUntil: Date;
  createdAt: Date;
  endedAt: Date | null;
  /** True when the worker's recovery job ended it (its acknowledging process was gone). */
  recovered?: boolean;
}

/** A chat delivery already handled (`_id` = the platform's delivery id), remembered a while. */
export interface ChatDeliveryDoc {
  _id: string;
  expiresAt: Date;
}

/** A Slack app installation (OAuth mode), sealed whole: it holds the bot token. `_id` = team or enterprise id. */
export interface ChatInstallationDoc {
  _id: string;
  sealed: string;
  updatedAt: Date;
}
