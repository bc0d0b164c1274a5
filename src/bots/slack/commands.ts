import type { App, SlashCommand } from '@slack/bolt';
import type { CoreDeps } from '../../core/context.js';
import { isFirstDelivery } from '../../core/chat/deliveries.js';
import type { ChatPerson } from '../../core/chat/link-audit.js';
import { changeApprovers, changeLink, requireLink, unlink } from '../../core/chat/links.js';
import { startChatLogin } from '../../core/chat/login.js';
import { failureText } from '../../core/chat/refusal.js';
import { chatStatus, keyStatusText } from '../../core/chat/status.js';
import { respond } from './gateway.js';

export interface SlackBotSettings {
  publicUrl: string;
  devicePrefix: string | undefined;
}

const HELP = [
  '`/postdeck login`: link this Slack workspace to a Postdeck workspace',
  '`/postdeck status`: what it is linked to, whether its key works, where approvals go, who approves',
  '`/postdeck approvals here`: send draft approvals to this channel',
  '`/postdeck approvers add @person` / `remove @person`: who may approve',
  '`/postdeck logout`: unlink and revoke the key',
].join('\n');

/**
 * `/postdeck <subcommand>`: acknowledged at once (Slack waits 3 s at most), then done and answered
 * through the command's response_url, only to the person who typed it. A retried delivery is
 * acknowledged and ignored.
 */
export function registerCommands(app: App, deps: CoreDeps, settings: SlackBotSettings): void {
  app.command('/postdeck', async ({ ack, command }) => {
    await ack();
    if (!(await isFirstDelivery(deps, `slack:${command.team_id}:${command.trigger_id}`))) return;
    let reply: Record<string, unknown>;
    try {
      reply = await runCommand(deps, settings, command);
    } catch (error) {
      reply = { text: failureText(deps.logger, error, 'a Slack command', { teamId: command.team_id }) };
    }
    await respond(command.response_url, { response_type: 'ephemeral', ...reply });
  });
}

async function runCommand(
  deps: CoreDeps,
  settings: SlackBotSettings,
  command: SlashCommand,
): Promise<Record<string, unknown>> {
  const [verb = 'help', ...rest] = command.text.trim().split(/\s+/).filter(Boolean);
  const teamId = command.team_id;
  switch (verb.toLowerCase()) {
    case 'login': {
      const started = await startChatLogin(deps, {
        platform: 'slack',
        teamId,
        teamName: command.team_domain,
        chatUserId: command.user_id,
        chatUserName: `@${command.user_name}`,
        replyTarget: command.response_url,
        publicUrl: settings.publicUrl,
        prefix: settings.devicePrefix,
      });
      const minutes = Math.round((started.expiresAt.getTime() - deps.now().getTime()) / 60_000);
      const text = `Your code is *${started.userCode}*. Open ${started.verificationUri}, sign in and enter it (it expires in ${minutes} minutes). Only you can see this.`;
      return {
        text,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text } },
          {
            type: 'actions',
            elements: [
              {
                type: 'button',
                action_id: 'postdeck_open_login',
                text: { type: 'plain_text', text: 'Open Postdeck' },
                url: started.verificationUriComplete,
                style: 'primary',
              },
            ],
          },
        ],
      };
    }
    case 'status':
      return { text: await statusText(deps, teamId) };
    case 'logout': {
      await unlink(deps, await requireLink(deps, 'slack', teamId), personOf(command));
      return { text: 'Unlinked: Postdeck revoked the key this workspace used. Run `/postdeck login` to link again.' };
    }
    case 'approvals': {
      if (rest[0]?.toLowerCase() !== 'here')
        return { text: 'Use `/postdeck approvals here` in the channel approvals should go to.' };
      const link = await requireLink(deps, 'slack', teamId);
      await changeLink(deps, link, personOf(command), () => ({ approvalsChannelId: command.channel_id }));
      return { text: `Draft approvals now go to <#${command.channel_id}>.` };
    }
    case 'approvers':
      return { text: await approversCommand(deps, command, rest) };
    default:
      return { text: HELP };
  }
}

async function statusText(deps: CoreDeps, teamId: string): Promise<string> {
  const status = await chatStatus(deps, 'slack', teamId);
  if (!status.linked) return 'Not linked to Postdeck. Run `/postdeck login`.';
  return [
    `Linked to the Postdeck workspace *${status.workspaceName}*. ${keyStatusText(status.keyWorks)}`,
    status.approvalsChannelId
      ? `Approvals go to <#${status.approvalsChannelId}>.`
      : 'No approvals channel yet: run `/postdeck approvals here`.',
    `Approvers: ${status.approvers.map((id) => `<@${id}>`).join(', ')}.`,
  ].join('\n');
}

/** `approvers add|remove <@U…>`: Slack sends mentions as `<@U123|name>`. */
async function approversCommand(deps: CoreDeps, command: SlashCommand, args: string[]): Promise<string> {
  const [op, mention] = args;
  const userId = /^<@([A-Z0-9]+)(\|[^>]*)?>$/.exec(mention ?? '')?.[1];
  if ((op !== 'add' && op !== 'remove') || !userId) {
    return 'Use `/postdeck approvers add @person` or `/postdeck approvers remove @person`.';
  }
  const link = await requireLink(deps, 'slack', command.team_id);
  const approvers = await changeApprovers(deps, link, personOf(command), { op, userId });
  return `Approvers: ${approvers.map((id) => `<@${id}>`).join(', ')}.`;
}

/** Who typed the command, as the audit trail names them. */
function personOf(command: SlashCommand): ChatPerson {
  return { id: command.user_id, name: `@${command.user_name}` };
}
