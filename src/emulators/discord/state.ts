import { randomBytes } from 'node:crypto';

/** Discord's epoch (2015-01-01), the origin of snowflake timestamps. */
const DISCORD_EPOCH = 1_420_070_400_000n;

/** Interaction tokens stay usable this long after the interaction (follow-ups, edits). */
export const INTERACTION_TOKEN_TTL_MS = 15 * 60_000;

/** The application the emulator hosts: its id and bot token. */
export interface EmulatedApplication {
  id: string;
  botToken: string;
}

/** A message's editable content. */
export interface MessageContent {
  content: string;
  embeds: unknown[];
  components: unknown[];
  flags: number;
}

/** A message in a channel, or one an interaction's webhook made (ephemeral ones are only the invoker's). */
export interface EmulatedMessage extends MessageContent {
  id: string;
  channelId: string;
  guildId: string | null;
  /** The message it replies to (message_reference), if any. */
  replyTo: string | null;
  allowedMentions: unknown;
  /** Who sent it: the bot's token, or an interaction's webhook. */
  author: 'bot' | 'interaction';
  /** The interaction whose response or follow-up it is. */
  interactionId: string | null;
  /** Every earlier version, oldest first (each PATCH appends the one it replaced). */
  edits: MessageContent[];
  deleted: boolean;
}

/** How the app answered an interaction at first: in the HTTP body of the request, or through the callback route. */
export interface InitialResponse {
  via: 'http' | 'callback';
  status: number;
  body: unknown;
  /** How long the app took to answer (Discord gives up after 3 s). */
  ms: number;
  /** What Discord would reject in it (a response type this interaction cannot take, a modal over the limits). */
  problems: string[];
}

/** One request the app made to the REST API, as received. */
export interface ApiRequest {
  method: string;
  path: string;
  /** The Authorization header's kind: a bot token (right or wrong), or none (webhook routes). */
  auth: 'bot' | 'wrong' | 'none';
  body: unknown;
}

/** One interaction Discord sent the app, and everything the app did with its token. */
export interface EmulatedInteraction {
  id: string;
  token: string;
  type: number;
  createdAt: number;
  guildId: string | null;
  channelId: string;
  userId: string;
  payload: Record<string, unknown>;
  /** For a button or a modal opened from one: the message the component sits on. */
  messageId: string | null;
  response: InitialResponse | null;
  /** The message a type 4 or 5 response made; `@original` for a button is the button's message. */
  originalId: string | null;
  followUpIds: string[];
}

/** An application command as registered, with the ids Discord gives it. */
export type RegisteredCommand = Record<string, unknown> & { id: string; name: string };

/** What the emulator holds; tests read it to see what the app did. */
export class DiscordEmulatorState {
  /** Guild (server) id → its name. */
  readonly guilds = new Map<string, string>();
  /** Channel id → its guild. */
  readonly channels = new Map<string, string>();
  readonly messages: EmulatedMessage[] = [];
  readonly interactions = new Map<string, EmulatedInteraction>();
  readonly globalCommands: RegisteredCommand[] = [];
  /** Guild id → its commands. */
  readonly guildCommands = new Map<string, RegisteredCommand[]>();
  readonly requests: ApiRequest[] = [];
  /** Not Discord's: people of the channel view (id to name) and channel names, for drawing. */
  readonly people = new Map<string, string>();
  readonly channelNames = new Map<string, string>();
  /** Not Discord's: the command a channel view's person typed, by its interaction id ("you used /postdeck login"). */
  readonly typedCommands = new Map<string, string>();
  /** Not Discord's: modals the app opened for a channel view's person, by interaction id. */
  readonly openModals = new Map<string, { channelId: string; userId: string; data: Record<string, unknown> }>();
  /** The emulator's clock (tests move it to expire tokens). */
  now: () => number = () => Date.now();
  /** How long Discord waits for an interaction's first response before giving up (3 s). */
  answerDeadlineMs = 3_000;
  private sequence = 0n;

  constructor(readonly application: EmulatedApplication) {}

  addGuild(name: string, guildId = this.snowflake()): string {
    this.guilds.set(guildId, name);
    return guildId;
  }

  addChannel(guildId: string, channelId = this.snowflake()): string {
    if (!this.guilds.has(guildId)) throw new Error(`no guild ${guildId} in the emulator`);
    this.channels.set(channelId, guildId);
    return channelId;
  }

  /** A snowflake: milliseconds since Discord's epoch, then a sequence number. */
  snowflake(): string {
    this.sequence = (this.sequence + 1n) & 0xfffn;
    return ((BigInt(this.now()) - DISCORD_EPOCH) * 4_194_304n + this.sequence).toString();
  }

  newInteractionToken(): string {
    return `aW50ZXJhY3Rpb246${randomBytes(48).toString('base64url')}`;
  }

  /** The interaction of a token, while it lasts (15 minutes). */
  liveInteraction(token: string): EmulatedInteraction | undefined {
    const interaction = [...this.interactions.values()].find((each) => each.token === token);
    if (!interaction || this.now() - interaction.createdAt > INTERACTION_TOKEN_TTL_MS) return undefined;
    return interaction;
  }

  message(id: string): EmulatedMessage | undefined {
    return this.messages.find((message) => message.id === id && !message.deleted);
  }

  /** What everyone in `channelId` sees: its messages, without ephemeral or deleted ones. */
  channel(channelId: string): EmulatedMessage[] {
    return this.messages.filter(
      (message) => message.channelId === channelId && !message.deleted && (message.flags & EPHEMERAL) === 0,
    );
  }

  /** The message an interaction's first response made, or the one its component sits on. */
  original(interactionId: string): EmulatedMessage | undefined {
    const interaction = this.interactions.get(interactionId);
    const id = interaction?.originalId ?? interaction?.messageId;
    return id ? this.message(id) : undefined;
  }

  followUps(interactionId: string): EmulatedMessage[] {
    const ids = this.interactions.get(interactionId)?.followUpIds ?? [];
    return ids.flatMap((id) => this.message(id) ?? []);
  }
}

/** Message flag: only the person who used the interaction sees it. */
export const EPHEMERAL = 64;
