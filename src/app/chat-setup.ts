import type { Config } from '../config.js';
import type { CoreDeps } from '../core/context.js';
import type { Logger } from '../logger.js';
import type { ChatEndpoint } from '../core/chat/gateway.js';
import { createDiscordBot } from '../bots/discord/bot.js';
import { createSlackBot } from '../bots/slack/bot.js';

/**
 * Starts the chat bots the configuration turns on: each hands core its gateway (so jobs can post
 * cards) and the server its endpoints. Every role builds them: workers post, API servers receive.
 */
export function startChatBots(deps: CoreDeps, config: Config, logger: Logger): ChatEndpoint[] {
  const endpoints: ChatEndpoint[] = [];
  const settings = { publicUrl: config.publicUrl, devicePrefix: config.auth.devicePrefix };
  if (config.chat.slack) {
    const slack = createSlackBot(deps, config.chat.slack, settings, logger);
    Object.assign(deps.chat, { slack: slack.gateway });
    endpoints.push(...slack.endpoints);
  }
  if (config.chat.discord) {
    const discord = createDiscordBot(deps, config.chat.discord, settings, logger);
    Object.assign(deps.chat, { discord: discord.gateway });
    endpoints.push(...discord.endpoints);
  }
  return endpoints;
}
