import { registerDiscordCommands } from '../bots/discord/register.js';
import { loadConfig } from '../config.js';

/**
 * `postdeck discord register-commands [--guild ID]`: registers `/postdeck` with Discord using the
 * DISCORD_* settings, in one server (shows at once) or globally, and prints what was registered.
 */
export async function registerDiscordCommandsCommand(flags: { guild: string | undefined }): Promise<void> {
  const discord = loadConfig(process.env).chat.discord;
  if (!discord) {
    throw new Error(
      'the Discord bot is not configured: set DISCORD_APPLICATION_ID, DISCORD_PUBLIC_KEY and DISCORD_BOT_TOKEN',
    );
  }
  if (flags.guild !== undefined && !/^\d{5,25}$/.test(flags.guild)) {
    throw new Error('--guild must be a server id (a number; copy it from Discord with developer mode on)');
  }
  const registered = await registerDiscordCommands(discord, flags.guild);
  const where = flags.guild ? `in the server ${flags.guild}` : 'globally (it can take a while to show everywhere)';
  process.stdout.write(
    `Registered ${registered.length} command(s) ${where} for application ${discord.applicationId}:\n` +
      registered.map((command) => `  /${command.name} (id ${command.id})\n`).join(''),
  );
}
