import {
  ApplicationCommandType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  type APIChatInputApplicationCommandInteraction,
  type APIInteraction,
} from 'discord.js';
import { isFirstDelivery } from '../../core/chat/deliveries.js';
import { onCommand } from './commands.js';
import { onButton, onModalSubmit } from './components.js';
import { ephemeral, type Answer, type DiscordBot } from './replies.js';

/**
 * Answers one verified interaction: PING with PONG; outside a server, a refusal (a link is per
 * server); an interaction id seen before is acknowledged and ignored; the rest by kind.
 */
export async function answerInteraction(bot: DiscordBot, interaction: APIInteraction): Promise<Answer> {
  if (interaction.type === InteractionType.Ping) return { response: { type: InteractionResponseType.Pong } };
  if (interaction.type === InteractionType.ApplicationCommandAutocomplete) {
    return { response: { type: InteractionResponseType.ApplicationCommandAutocompleteResult, data: { choices: [] } } };
  }
  if (!interaction.guild_id) {
    return { response: ephemeral('Postdeck works in a server: use `/postdeck` in a channel of the server you link.') };
  }
  switch (interaction.type) {
    case InteractionType.ApplicationCommand:
      if (!(await isFirstDelivery(bot.deps, `discord:${interaction.id}`))) return alreadyHandled();
      if (interaction.data.type !== ApplicationCommandType.ChatInput) break;
      return onCommand(bot, interaction as APIChatInputApplicationCommandInteraction);
    // A card's component dedupes itself: a card action is recorded under the same id (components.ts).
    case InteractionType.MessageComponent:
      return onButton(bot, interaction);
    case InteractionType.ModalSubmit:
      return onModalSubmit(bot, interaction);
  }
  return { response: ephemeral('Postdeck does not know that command.') };
}

/** A replayed command: Discord takes one response per interaction, so this one changes nothing. */
function alreadyHandled(): Answer {
  return {
    response: {
      type: InteractionResponseType.ChannelMessageWithSource,
      data: { content: 'Already handled.', flags: MessageFlags.Ephemeral },
    },
  };
}
