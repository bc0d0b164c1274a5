import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  InteractionContextType,
  type RESTPutAPIApplicationCommandsJSONBody,
} from 'discord.js';

const { Subcommand, SubcommandGroup, User, String: Text } = ApplicationCommandOptionType;

/**
 * The `/postdeck` command as Discord registers it: the same subcommands as Slack's, plus
 * `timezone`, since Discord has no date picker and Schedule reads a typed time in the link's zone.
 * Offered in servers only (a link is per server).
 */
export const POSTDECK_COMMANDS: RESTPutAPIApplicationCommandsJSONBody = [
  {
    type: ApplicationCommandType.ChatInput,
    name: 'postdeck',
    description: 'Approve TikTok and Instagram drafts from Postdeck in this server',
    contexts: [InteractionContextType.Guild],
    integration_types: [ApplicationIntegrationType.GuildInstall],
    options: [
      { type: Subcommand, name: 'login', description: 'Link this server to a Postdeck workspace' },
      {
        type: Subcommand,
        name: 'status',
        description: 'What this server is linked to, where approvals go, who approves',
      },
      { type: Subcommand, name: 'logout', description: 'Unlink this server and revoke its Postdeck key' },
      {
        type: SubcommandGroup,
        name: 'approvals',
        description: 'Where draft approvals go',
        options: [{ type: Subcommand, name: 'here', description: 'Send draft approvals to this channel' }],
      },
      {
        type: SubcommandGroup,
        name: 'approvers',
        description: 'Who may approve, schedule, edit and reject drafts',
        options: [
          {
            type: Subcommand,
            name: 'add',
            description: 'Let someone approve drafts',
            options: [{ type: User, name: 'user', description: 'Who may approve', required: true }],
          },
          {
            type: Subcommand,
            name: 'remove',
            description: 'Stop someone approving drafts',
            options: [{ type: User, name: 'user', description: 'Who may no longer approve', required: true }],
          },
        ],
      },
      {
        type: Subcommand,
        name: 'timezone',
        description: 'The time zone Schedule reads times in',
        options: [
          {
            type: Text,
            name: 'zone',
            description: 'An IANA time zone, e.g. Europe/Berlin',
            required: true,
            max_length: 64,
          },
        ],
      },
      { type: Subcommand, name: 'help', description: 'What /postdeck can do' },
    ],
  },
];
