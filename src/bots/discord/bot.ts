import { REST } from 'discord.js';
import type { CoreDeps } from '../../core/context.js';
import type { ChatEndpoint, ChatGateway } from '../../core/chat/gateway.js';
import type { DiscordConfig } from '../../settings/chat.js';
import type { Logger } from '../../logger.js';
import { interactionsEndpoint } from './endpoint.js';
import { discordGateway } from './gateway.js';
import type { DiscordBotSettings } from './replies.js';

export type { DiscordBotSettings } from './replies.js';

/**
 * The Discord bot over HTTP interactions (no gateway connection): Discord POSTs each slash command,
 * button click and form to /discord/interactions, signed with Ed25519; replies, edits and cards go
 * through discord.js's REST client to DISCORD_API_URL. Register `/postdeck` once with
 * `postdeck discord register-commands`.
 */
export function createDiscordBot(
  deps: CoreDeps,
  config: DiscordConfig,
  settings: DiscordBotSettings,
  logger: Logger,
): { endpoints: ChatEndpoint[]; gateway: ChatGateway } {
  // Two retries and a 10 s timeout: a follow-up that cannot get through is logged, not retried for ever.
  const rest = new REST({ version: '10', api: config.apiUrl, retries: 2, timeout: 10_000 }).setToken(config.botToken);
  const bot = { deps, config, settings, rest, logger: logger.child({ component: 'discord' }) };
  return { endpoints: [interactionsEndpoint(bot)], gateway: discordGateway(rest, config) };
}
