import type { CoreDeps } from '../context.js';
import { defineJob, type AnyJobDefinition } from '../jobs/define-job.js';
import type { ChatGateways } from './gateway.js';
import { pollChatLogin, pollChatLoginHandle, type LoginOutcome } from './login.js';

/** The job polling a chat login; it tells the person how it ended through the chat they used. */
export const chatLoginJob: AnyJobDefinition = defineJob({
  ...pollChatLoginHandle,
  retry: { maxRetries: 5, delayMs: 2_000, maxDelayMs: 30_000 },
  lockLifetimeMs: 30_000,
  perform: async ({ loginId }, { deps }) => {
    const outcome = await pollChatLogin(deps, loginId);
    if (outcome) await tellLoginOutcome(deps, deps.chat, loginId, outcome);
  },
});

async function tellLoginOutcome(
  deps: CoreDeps,
  gateways: ChatGateways,
  loginId: string,
  outcome: NonNullable<LoginOutcome>,
): Promise<void> {
  const login = await deps.db.chatLogins.findOne({ _id: loginId });
  const gateway = login && gateways[login.platform];
  if (!login || !gateway) return;
  // Plain words and `code` only: both Slack and Discord render them alike.
  const text =
    outcome.outcome === 'linked'
      ? `Linked to the Postdeck workspace "${outcome.workspaceName}". Choose where drafts go for approval with \`/postdeck approvals here\`.`
      : outcome.outcome === 'denied'
        ? 'The login was denied in Postdeck; nothing was linked.'
        : 'The login code expired before it was approved. Run `/postdeck login` again.';
  try {
    await gateway.replyToLogin(login.teamId, deps.secrets.open(login.reply.sealed), text);
  } catch (error) {
    // The link stands either way; `/postdeck status` shows it.
    deps.logger.warn({ err: error, loginId }, 'telling a chat login its outcome failed');
  }
}
