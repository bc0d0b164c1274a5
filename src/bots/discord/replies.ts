import {
  InteractionResponseType,
  MessageFlags,
  Routes,
  type APIInteraction,
  type APIInteractionResponse,
  type APIUser,
  type REST,
  type RESTPatchAPIWebhookWithTokenMessageJSONBody,
} from 'discord.js';
import type { CoreDeps } from '../../core/context.js';
import { failureText as failureTextOf } from '../../core/chat/refusal.js';
import type { DiscordConfig } from '../../settings/chat.js';
import type { Logger } from '../../logger.js';
import { NO_MENTIONS } from './card.js';

export interface DiscordBotSettings {
  publicUrl: string;
  devicePrefix: string | undefined;
}

/** What the interaction handlers share: core, the REST client (bot token set) and settings. */
export interface DiscordBot {
  deps: CoreDeps;
  config: DiscordConfig;
  settings: DiscordBotSettings;
  rest: REST;
  logger: Logger;
}

/**
 * The app's answer to an interaction: the response that goes in the HTTP body at once (Discord
 * waits 3 s), and the slow work that follows it with the interaction's token.
 */
export interface Answer {
  response: APIInteractionResponse;
  after?: () => Promise<void>;
}

/** A message only the person who used the interaction sees. */
export function ephemeral(content: string): APIInteractionResponse {
  return {
    type: InteractionResponseType.ChannelMessageWithSource,
    data: { content, flags: MessageFlags.Ephemeral, allowed_mentions: NO_MENTIONS },
  };
}

/** "Postdeck is thinking…", only to the invoker; `@original` is edited with the result. */
export function deferredEphemeral(): APIInteractionResponse {
  return { type: InteractionResponseType.DeferredChannelMessageWithSource, data: { flags: MessageFlags.Ephemeral } };
}

/** Rewrites the interaction's first reply (its token opens it for 15 minutes, no bot token needed). */
export async function editOriginal(
  bot: Pick<DiscordBot, 'rest' | 'config'>,
  token: string,
  body: RESTPatchAPIWebhookWithTokenMessageJSONBody,
): Promise<void> {
  await bot.rest.patch(Routes.webhookMessage(bot.config.applicationId, token, '@original'), {
    body: { allowed_mentions: NO_MENTIONS, ...body },
    auth: false,
  });
}

/** A further message only the invoker sees (a refusal after a deferred update). */
export async function followUpEphemeral(bot: DiscordBot, token: string, content: string): Promise<void> {
  await bot.rest.post(Routes.webhook(bot.config.applicationId, token), {
    body: { content, flags: MessageFlags.Ephemeral, allowed_mentions: NO_MENTIONS },
    auth: false,
  });
}

/** A refusal's own words; any other failure is logged and told as ours. */
export function failureText(bot: DiscordBot, error: unknown, what: string): string {
  return failureTextOf(bot.logger, error, `a Discord ${what}`);
}

/** Who used the interaction: the member's user in a server, the user in a direct message. */
export function userOf(interaction: APIInteraction): APIUser | undefined {
  return interaction.member?.user ?? interaction.user;
}
