import {
  ApplicationCommandOptionType,
  ButtonStyle,
  ComponentType,
  Routes,
  type APIApplicationCommandInteractionDataOption,
  type APIChatInputApplicationCommandInteraction,
  type RESTPatchAPIWebhookWithTokenMessageJSONBody,
} from 'discord.js';
import type { ChatPerson } from '../../core/chat/link-audit.js';
import { changeLink, requireLink, unlink } from '../../core/chat/links.js';
import { startChatLogin } from '../../core/chat/login.js';
import { ChatRefusal } from '../../core/chat/refusal.js';
import { approversCommand, statusText } from './link-commands.js';
import { deferredEphemeral, editOriginal, failureText, userOf, type Answer, type DiscordBot } from './replies.js';
import { canonicalTimeZone, formatWallClock, wallClockAt } from './wall-clock.js';

type Reply = RESTPatchAPIWebhookWithTokenMessageJSONBody;

/** What `/postdeck help` says. */
const HELP = [
  '`/postdeck login`: link this Discord server to a Postdeck workspace',
  '`/postdeck status`: what it is linked to, whether its key works, where approvals go, who approves',
  '`/postdeck approvals here`: send draft approvals to this channel',
  '`/postdeck approvers add @person` / `remove @person`: who may approve',
  '`/postdeck timezone Europe/Berlin`: the time zone Schedule reads times in',
  '`/postdeck logout`: unlink and revoke the key',
].join('\n');

/** The subcommand path (`approvers add`) and the last one's options by name. */
export function subcommandOf(options: APIApplicationCommandInteractionDataOption[] | undefined): {
  path: string[];
  values: Map<string, string>;
} {
  const path: string[] = [];
  let current = options ?? [];
  for (;;) {
    const nested = current.find(
      (option) =>
        option.type === ApplicationCommandOptionType.Subcommand ||
        option.type === ApplicationCommandOptionType.SubcommandGroup,
    );
    if (!nested || !('options' in nested)) break;
    path.push(nested.name);
    current = nested.options ?? [];
  }
  const values = new Map<string, string>();
  for (const option of current) if ('value' in option) values.set(option.name, String(option.value));
  return { path, values };
}

/**
 * `/postdeck <subcommand>`: answered at once with an ephemeral "thinking", then done, and the
 * result written into that reply, so only the person who typed it ever sees it.
 */
export function onCommand(bot: DiscordBot, interaction: APIChatInputApplicationCommandInteraction): Answer {
  return {
    response: deferredEphemeral(),
    after: async () => {
      let reply: Reply;
      try {
        reply = await runCommand(bot, interaction);
      } catch (error) {
        reply = { content: failureText(bot, error, 'command') };
      }
      await editOriginal(bot, interaction.token, reply);
    },
  };
}

async function runCommand(bot: DiscordBot, interaction: APIChatInputApplicationCommandInteraction): Promise<Reply> {
  const { deps } = bot;
  const teamId = interaction.guild_id ?? '';
  const user = userOf(interaction);
  const person: ChatPerson = { id: user?.id ?? '', name: `@${user?.username ?? 'someone'}` };
  const { path, values } = subcommandOf(interaction.data.options);
  switch (path.join(' ')) {
    case 'login':
      return login(bot, interaction);
    case 'status':
      return { content: await statusText(deps, teamId) };
    case 'logout':
      await unlink(deps, await requireLink(deps, 'discord', teamId), person);
      return { content: 'Unlinked: Postdeck revoked the key this server used. Run `/postdeck login` to link again.' };
    case 'approvals here': {
      const channelId = interaction.channel?.id ?? interaction.channel_id ?? '';
      await changeLink(deps, await requireLink(deps, 'discord', teamId), person, () => ({
        approvalsChannelId: channelId,
      }));
      return { content: `Draft approvals now go to <#${channelId}>.` };
    }
    case 'approvers add':
    case 'approvers remove':
      return { content: await approversCommand(deps, teamId, person, path[1] === 'add', values.get('user') ?? '') };
    case 'timezone':
      return { content: await changeTimeZone(bot, teamId, person, values.get('zone') ?? '') };
    default:
      return { content: HELP };
  }
}

/** Starts a device login; the code and its link go only to the person who asked. */
async function login(bot: DiscordBot, interaction: APIChatInputApplicationCommandInteraction): Promise<Reply> {
  const user = userOf(interaction);
  const teamId = interaction.guild_id ?? '';
  const started = await startChatLogin(bot.deps, {
    platform: 'discord',
    teamId,
    teamName: await guildName(bot, teamId),
    chatUserId: user?.id ?? '',
    chatUserName: `@${user?.username ?? 'someone'}`,
    replyTarget: interaction.token,
    publicUrl: bot.settings.publicUrl,
    prefix: bot.settings.devicePrefix,
  });
  const minutes = Math.round((started.expiresAt.getTime() - bot.deps.now().getTime()) / 60_000);
  return {
    content: `Your code is **${started.userCode}**. Open ${started.verificationUri}, sign in and enter it (it expires in ${minutes} minutes). Only you can see this.`,
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.Button,
            style: ButtonStyle.Link,
            label: 'Open Postdeck',
            url: started.verificationUriComplete,
          },
        ],
      },
    ],
  };
}

/** The server's name for the login page; its id when Discord will not tell. */
async function guildName(bot: DiscordBot, guildId: string): Promise<string> {
  try {
    const guild = (await bot.rest.get(Routes.guild(guildId))) as { name?: string };
    return guild.name ?? guildId;
  } catch (error) {
    bot.logger.warn({ err: error, guildId }, 'could not read the Discord server name');
    return guildId;
  }
}

async function changeTimeZone(bot: DiscordBot, teamId: string, person: ChatPerson, typed: string): Promise<string> {
  const zone = canonicalTimeZone(typed);
  if (!zone) {
    throw new ChatRefusal(
      'bad_input',
      `"${typed}" is not a time zone Postdeck knows. Use an IANA name such as Europe/Berlin or America/New_York.`,
    );
  }
  await changeLink(bot.deps, await requireLink(bot.deps, 'discord', teamId), person, () => ({ timeZone: zone }));
  const there = formatWallClock(wallClockAt(bot.deps.now().getTime(), zone));
  return `Schedule times are now read in ${zone} (it is ${there} there now).`;
}
