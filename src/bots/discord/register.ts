import { REST, Routes } from 'discord.js';
import type { DiscordConfig } from '../../settings/chat.js';
import { POSTDECK_COMMANDS } from './definitions.js';

/** A command as Discord answers the registration: the definition with its id. */
export interface RegisteredCommand {
  id: string;
  name: string;
}

/**
 * Registers `/postdeck` with Discord (a bulk overwrite, so running it again is harmless): globally,
 * or in one guild, where changes show at once (global ones can take a while to reach every client).
 */
export async function registerDiscordCommands(
  config: DiscordConfig,
  guildId: string | undefined,
): Promise<RegisteredCommand[]> {
  const rest = new REST({ version: '10', api: config.apiUrl, retries: 2, timeout: 15_000 }).setToken(config.botToken);
  const route = guildId
    ? Routes.applicationGuildCommands(config.applicationId, guildId)
    : Routes.applicationCommands(config.applicationId);
  return (await rest.put(route, { body: POSTDECK_COMMANDS })) as RegisteredCommand[];
}
