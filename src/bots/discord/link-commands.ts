import type { CoreDeps } from '../../core/context.js';
import type { ChatPerson } from '../../core/chat/link-audit.js';
import { changeApprovers, requireLink } from '../../core/chat/links.js';
import { ChatRefusal } from '../../core/chat/refusal.js';
import { chatStatus, keyStatusText } from '../../core/chat/status.js';

/** `/postdeck status`, in Discord's mentions. */
export async function statusText(deps: CoreDeps, teamId: string): Promise<string> {
  const status = await chatStatus(deps, 'discord', teamId);
  if (!status.linked) return 'Not linked to Postdeck. Run `/postdeck login`.';
  return [
    `Linked to the Postdeck workspace **${status.workspaceName}**. ${keyStatusText(status.keyWorks)}`,
    status.approvalsChannelId
      ? `Approvals go to <#${status.approvalsChannelId}>.`
      : 'No approvals channel yet: run `/postdeck approvals here`.',
    `Approvers: ${status.approvers.map((id) => `<@${id}>`).join(', ')}.`,
    `Schedule times are read in ${status.timeZone} (change it with \`/postdeck timezone\`).`,
  ].join('\n');
}

/** `/postdeck approvers add|remove <user>`: Discord sends the chosen user's id. */
export async function approversCommand(
  deps: CoreDeps,
  teamId: string,
  person: ChatPerson,
  add: boolean,
  userId: string,
): Promise<string> {
  if (!/^\d+$/.test(userId)) throw new ChatRefusal('bad_input', 'Pick the person with the `user` option.');
  const link = await requireLink(deps, 'discord', teamId);
  const approvers = await changeApprovers(deps, link, person, { op: add ? 'add' : 'remove', userId });
  return `Approvers: ${approvers.map((id) => `<@${id}>`).join(', ')}.`;
}
