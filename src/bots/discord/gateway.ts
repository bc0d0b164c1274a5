import { Routes, type REST } from 'discord.js';
import type { ChatGateway } from '../../core/chat/gateway.js';
import type { DiscordConfig } from '../../settings/chat.js';
import { cardMessage, NO_MENTIONS } from './card.js';
import { editOriginal } from './replies.js';

/**
 * Discord as core's chat gateway: cards and notices as channel messages with the bot token, the
 * published link as a reply to the card, and a login's outcome written into the ephemeral reply
 * of the `/postdeck login` that started it (its interaction token works for 15 minutes, as long as
 * the code; a later edit fails and core logs it).
 */
export function discordGateway(rest: REST, config: DiscordConfig): ChatGateway {
  return {
    platform: 'discord',
    async postCard(place, card) {
      const message = (await rest.post(Routes.channelMessages(place.channelId), { body: cardMessage(card) })) as {
        id: string;
      };
      return message.id;
    },
    async updateCard(place, messageId, card) {
      await rest.patch(Routes.channelMessage(place.channelId, messageId), { body: cardMessage(card) });
    },
    async replyToCard(place, messageId, text) {
      await rest.post(Routes.channelMessages(place.channelId), {
        body: {
          content: text,
          message_reference: { message_id: messageId, channel_id: place.channelId, fail_if_not_exists: false },
          allowed_mentions: { ...NO_MENTIONS, replied_user: false },
        },
      });
    },
    async postNotice(place, text) {
      await rest.post(Routes.channelMessages(place.channelId), {
        body: { content: text, allowed_mentions: NO_MENTIONS },
      });
    },
    async replyToLogin(_teamId, token, text) {
      await editOriginal({ rest, config }, token, { content: text, components: [] });
    },
  };
}
