import { randomUUID } from 'node:crypto';
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { CoreDeps } from '../../core/context.js';
import { MAX_CHAT_CAPTION, type CardAction } from '../../core/chat/actions.js';
import { carryOutCardAction, recordCardAction } from '../../core/chat/recorded-actions.js';
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
 * The card's buttons and modals. Each is acknowledged at once; the work follows (a card action is
 * recorded first, so the worker carries it out if this process dies before it does). Only approvers get
 * past the first check; everyone else is told so, only to them, and nothing changes. The card is
 * redrawn in place with who did what.
 */
export function registerInteractions(app: App, deps: CoreDeps): void {
  app.action('postdeck_open_login', async ({ ack }) => ack());

  app.action<BlockAction<ButtonAction>>(ACTIONS.approve, async ({ ack, body, action, client }) => {
    await onCard(deps, body, action.value ?? '', { type: 'approve' }, () => ack(), client);
  });
  app.action<BlockAction<ButtonAction>>(ACTIONS.reject, async ({ ack, body, action, client }) => {
    await onCard(deps, body, action.value ?? '', { type: 'reject' }, () => ack(), client);
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
    await onModal(deps, body, view.private_metadata, { type: 'schedule', at }, () => ack(), client);
  });
  app.view(VIEWS.edit, async ({ ack, body, view, client }) => {
    const content = view.state.values.caption?.text?.value?.trim() ?? '';
    if (!content) {
      await ack({ response_action: 'errors', errors: { caption: 'The caption cannot be empty.' } });
      return;
    }
    await onModal(deps, body, view.private_metadata, { type: 'edit', content }, () => ack(), client);
  });
}

type Client = Parameters<Parameters<App['action']>[1]>[0]['client'];
type ViewBody = {
  team: { id: string } | null;
  user: { id: string; name?: string; username?: string };
  /** Absent only on view_closed, which never acts. */
  trigger_id?: string;
};
type Ack = () => Promise<void>;

async function onCard(
  deps: CoreDeps,
  body: BlockAction,
  postId: string,
  action: CardAction,
  ack: Ack,
  client: Client,
): Promise<void> {
  const ref: CardRef = {
    postId,
    channel: body.channel?.id ?? '',
    ts: body.message?.ts ?? '',
    responseUrl: body.response_url,
  };
  await act(deps, body, ref, action, ack, client);
}

async function onModal(
  deps: CoreDeps,
  body: ViewBody,
  metadata: string,
  action: CardAction,
  ack: Ack,
  client: Client,
): Promise<void> {
  const ref = JSON.parse(metadata) as CardRef;
  await act(deps, body, ref, action, ack, client);
}

/**
 * Records the click (a redelivery is acknowledged and dropped), acknowledges it, then carries it out
 * and redraws the card; a refusal goes only to the person who clicked.
 */
async function act(deps: CoreDeps, body: ViewBody, ref: CardRef, action: CardAction, ack: Ack, client: Client) {
  const teamId = body.team?.id ?? '';
  const deliveryId = `slack:${teamId}:${body.trigger_id ?? randomUUID()}`;
  const chatUserName = body.user.username ?? body.user.name ?? body.user.id;
  const who = { platform: 'slack' as const, teamId, chatUserId: body.user.id, chatUserName, postId: ref.postId };
  const where = { place: { teamId, channelId: ref.channel }, messageId: ref.ts };
  let recorded: boolean;
  try {
    recorded = await recordCardAction(deps, deliveryId, who, action, where);
  } catch (error) {
    await ack();
    await refuse(deps, ref.responseUrl, error);
    return;
  }
  await ack();
  if (!recorded) return;
  try {
    const card = await carryOutCardAction(deps, deliveryId);
    if (card) await client.chat.update({ channel: ref.channel, ts: ref.ts, ...cardBlocks(card) });
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
