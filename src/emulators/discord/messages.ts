import { unknownMessage } from './errors.js';
import type { DiscordEmulatorState, EmulatedMessage, MessageContent } from './state.js';
import { checkedMessage } from './validate.js';

type Json = Record<string, unknown>;

type Where = { channelId: string; author: EmulatedMessage['author']; interactionId: string | null };

/** Stores a new message after checking it as Discord does. */
export function createMessage(state: DiscordEmulatorState, where: Where, body: Json): EmulatedMessage {
  const reference = (body.message_reference ?? {}) as Json;
  const replyTo = typeof reference.message_id === 'string' ? reference.message_id : null;
  if (replyTo && !state.message(replyTo) && reference.fail_if_not_exists !== false) throw unknownMessage();
  return storeMessage(state, where, checkedMessage(body), { replyTo, allowedMentions: body.allowed_mentions ?? null });
}

/** Stores a message as given (a deferred response's empty "thinking" placeholder is one Discord makes itself). */
export function storeMessage(
  state: DiscordEmulatorState,
  where: Where,
  content: MessageContent,
  extras: { replyTo?: string | null; allowedMentions?: unknown } = {},
): EmulatedMessage {
  const message: EmulatedMessage = {
    id: state.snowflake(),
    channelId: where.channelId,
    guildId: state.channels.get(where.channelId) ?? null,
    ...content,
    replyTo: extras.replyTo ?? null,
    allowedMentions: extras.allowedMentions ?? null,
    author: where.author,
    interactionId: where.interactionId,
    edits: [],
    deleted: false,
  };
  state.messages.push(message);
  return message;
}

/** Rewrites a message, keeping the version it replaces in `edits`. */
export function editMessage(message: EmulatedMessage, body: Json): EmulatedMessage {
  const next = checkedMessage(body, message);
  message.edits.push({
    content: message.content,
    embeds: message.embeds,
    components: message.components,
    flags: message.flags,
  });
  Object.assign(message, next);
  if (body.allowed_mentions !== undefined) message.allowedMentions = body.allowed_mentions;
  return message;
}

/** A message as Discord's API shows it. */
export function apiMessage(state: DiscordEmulatorState, message: EmulatedMessage): Json {
  const timestamp = (id: string) => new Date(Number((BigInt(id) >> 22n) + 1_420_070_400_000n)).toISOString();
  return {
    id: message.id,
    type: message.replyTo ? 19 : 0,
    channel_id: message.channelId,
    ...(message.guildId ? { guild_id: message.guildId } : {}),
    author: { id: state.application.id, username: 'Postdeck', discriminator: '0000', bot: true },
    content: message.content,
    embeds: message.embeds,
    components: message.components,
    flags: message.flags,
    attachments: [],
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    pinned: false,
    tts: false,
    timestamp: timestamp(message.id),
    edited_timestamp: message.edits.length > 0 ? new Date(state.now()).toISOString() : null,
    ...(message.replyTo ? { message_reference: { message_id: message.replyTo, channel_id: message.channelId } } : {}),
    ...(message.author === 'interaction'
      ? { webhook_id: state.application.id, application_id: state.application.id }
      : {}),
  };
}
