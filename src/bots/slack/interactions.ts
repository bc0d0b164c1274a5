import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { CoreDeps } from '../../core/context.js';
import { actOnCard, MAX_CHAT_CAPTION, type CardAction } from '../../core/chat/actions.js';
import { isFirstDelivery } from '../../core/chat/deliveries.js';
import { requireApprover, requireLink } from '../../core/chat/links.js';
import { failureText } from '../../core/chat/refusal.js';
import { currentCaption } from '../../core/chat/status.js';
import { ACTIONS, cardBlocks, editModal, scheduleModal, VIEWS } from './blocks.js';
import { respond } from './gateway.js';

/** Where a card is, carried through a modal in its private_metadata. */
interface CardRef {
  postId: string;
  channel: string;
  ts: string;
  responseUrl: string;
}

/**
 * The card's buttons and modals. Each is acknowledged at once; the work follows. Only approvers get
 * past the first check; everyone else is told so, only to them, and nothing changes. The card is
 * redrawn in place with who did what.
 */
export function registerInteractions(app: App, deps: CoreDeps): void {
  app.action('postdeck_open_login', async ({ ack }) => ack());

  app.action<BlockAction<ButtonAction>>(ACTIONS.approve, async ({ ack, body, action, client }) => {
    await ack();
    await onCard(deps, body, action.value ?? '', { type: 'approve' }, client);
  });
  app.action<BlockAction<ButtonAction>>(ACTIONS.reject, async ({ ack, body, action, client }) => {
    await ack();
    await onCard(deps, body, action.value ?? '', { type: 'reject' }, client);
  });
  app.action<BlockAction<ButtonAction>>(ACTIONS.schedule, async ({ ack, body, action, client }) => {
    await ack();
    await openModal(deps, body, action.value ?? '', async (metadata) => {
      await client.views.open({
        trigger_id: body.trigger_id,
        view: scheduleModal(metadata, inAnHour(deps.now())) as never,
      });
    });
  });
  app.action<BlockAction<ButtonAction>>(ACTIONS.edit, async ({ ack, body, action, client }) => {
    await ack();
    const teamId = body.team?.id ?? '';
    await openModal(deps, body, action.value ?? '', async (metadata) => {
      const caption = await currentCaption(deps, 'slack', teamId, action.value ?? '');
      await client.views.open({
        trigger_id: body.trigger_id,
        view: editModal(metadata, caption, MAX_CHAT_CAPTION) as never,
      });
    });
  });

  app.view(VIEWS.schedule, async ({ ack, body, view, client }) => {
    const seconds = view.state.values.when?.at?.selected_date_time;
    const at = typeof seconds === 'number' ? new Date(seconds * 1000) : null;
    if (!at || at.getTime() <= deps.now().getTime()) {
      await ack({ response_action: 'errors', errors: { when: 'Pick a time in the future.' } });
      return;
    }
    await ack();
    await onModal(deps, body, view.private_metadata, { type: 'schedule', at }, client);
  });
  app.view(VIEWS.edit, async ({ ack, body, view, client }) => {
    const content = view.state.values.caption?.text?.value?.trim() ?? '';
    if (!content) {
      await ack({ response_action: 'errors', errors: { caption: 'The caption cannot be empty.' } });
      return;
    }
    await ack();
    await onModal(deps, body, view.private_metadata, { type: 'edit', content }, client);
  });
}

type Client = Parameters<Parameters<App['action']>[1]>[0]['client'];
type ViewBody = { team: { id: string } | null; user: { id: string; name?: string; username?: string } };

async function onCard(
  deps: CoreDeps,
  body: BlockAction,
  postId: string,
  action: CardAction,
  client: Client,
): Promise<void> {
  if (!(await isFirstDelivery(deps, `slack:${body.team?.id}:${body.trigger_id}`))) return;
  const ref: CardRef = {
    postId,
    channel: body.channel?.id ?? '',
    ts: body.message?.ts ?? '',
    responseUrl: body.response_url,
  };
  await act(deps, body.team?.id ?? '', body.user, ref, action, client);
}

async function onModal(
  deps: CoreDeps,
  body: ViewBody,
  metadata: string,
  action: CardAction,
  client: Client,
): Promise<void> {
  const ref = JSON.parse(metadata) as CardRef;
  await act(deps, body.team?.id ?? '', body.user, ref, action, client);
}

async function act(
  deps: CoreDeps,
  teamId: string,
  user: { id: string; name?: string; username?: string },
  ref: CardRef,
  action: CardAction,
  client: Client,
): Promise<void> {
  try {
    const card = await actOnCard(
      deps,
      {
        platform: 'slack',
        teamId,
        chatUserId: user.id,
        chatUserName: user.username ?? user.name ?? user.id,
        postId: ref.postId,
      },
      action,
    );
    await client.chat.update({ channel: ref.channel, ts: ref.ts, ...cardBlocks(card) });
  } catch (error) {
    await refuse(deps, ref.responseUrl, error);
  }
}

/** Opens a modal for an approver; anyone else is refused before any form appears. */
async function openModal(
  deps: CoreDeps,
  body: BlockAction,
  postId: string,
  open: (metadata: string) => Promise<void>,
): Promise<void> {
  try {
    requireApprover(await requireLink(deps, 'slack', body.team?.id ?? ''), body.user.id);
    const ref: CardRef = {
      postId,
      channel: body.channel?.id ?? '',
      ts: body.message?.ts ?? '',
      responseUrl: body.response_url,
    };
    await open(JSON.stringify(ref));
  } catch (error) {
    await refuse(deps, body.response_url, error);
  }
}

/** A refusal, only to the person who clicked; the card stays as it was. */
async function refuse(deps: CoreDeps, responseUrl: string, error: unknown): Promise<void> {
  const text = failureText(deps.logger, error, 'a Slack card action');
  await respond(responseUrl, { response_type: 'ephemeral', replace_original: false, text });
}

function inAnHour(now: Date): Date {
  return new Date(Math.ceil((now.getTime() + 60 * 60_000) / (15 * 60_000)) * 15 * 60_000);
}
