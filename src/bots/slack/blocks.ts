import { cardHeadline, type ApprovalCard } from '../../core/chat/gateway.js';

// Slack Block Kit for the approval card; action ids are namespaced, values carry the post id.
export const ACTIONS = {
  approve: 'postdeck_approve',
  schedule: 'postdeck_schedule',
  edit: 'postdeck_edit',
  reject: 'postdeck_reject',
} as const;
export const VIEWS = { schedule: 'postdeck_schedule_modal', edit: 'postdeck_edit_modal' } as const;

type Block = Record<string, unknown>;
const MAX_IMAGES = 10;

/** The card as Block Kit: headline, caption, slide previews, details, what happened, and the buttons while it waits. */
export function cardBlocks(card: ApprovalCard): { text: string; blocks: Block[] } {
  const blocks: Block[] = [{ type: 'header', text: plain(cardHeadline(card)) }];
  if (card.caption) blocks.push({ type: 'section', text: mrkdwn(escape(truncate(card.caption, 2900))) });
  for (const preview of card.previews.slice(0, MAX_IMAGES)) {
    blocks.push({ type: 'image', image_url: preview.url, alt_text: preview.alt });
  }
  if (card.previews.length > MAX_IMAGES) {
    blocks.push({ type: 'context', elements: [mrkdwn(`and ${card.previews.length - MAX_IMAGES} more slides`)] });
  }
  if (card.account) {
    blocks.push({
      type: 'context',
      elements: [
        mrkdwn(`*Account:* ${escape(card.account)}`),
        ...(card.privacy ? [mrkdwn(`*Privacy:* ${escape(card.privacy)}`)] : []),
        mrkdwn(`*Created by:* ${escape(card.author)}`),
      ],
    });
  }
  if (card.musicNote) blocks.push({ type: 'context', elements: [mrkdwn(`:musical_note: ${escape(card.musicNote)}`)] });
  const outcome = outcomeLines(card);
  if (outcome.length > 0) blocks.push({ type: 'section', text: mrkdwn(outcome.join('\n')) });
  if (card.status === 'awaiting') blocks.push(buttons(card.postId));
  return { text: `${cardHeadline(card)}: ${truncate(card.caption, 150)}`, blocks };
}

function outcomeLines(card: ApprovalCard): string[] {
  const lines = card.history.map((line) => `• <@${line.chatUserId}> ${escape(line.result)}`);
  if (card.scheduledFor)
    lines.push(
      `:calendar: Publishes <!date^${Math.floor(card.scheduledFor.getTime() / 1000)}^{date_short_pretty} at {time}|${card.scheduledFor.toISOString()}>`,
    );
  if (card.status === 'published')
    lines.push(
      card.releaseUrl
        ? `:white_check_mark: <${card.releaseUrl}|${escape(card.releaseLabel)}>`
        : `:white_check_mark: Published; ${escape(card.network || 'the network')} has not released the link yet.`,
    );
  if (card.status === 'failed' && card.errorText) lines.push(`:warning: ${escape(card.errorText)}`);
  return lines;
}

function buttons(postId: string): Block {
  return {
    type: 'actions',
    block_id: `postdeck_card_${postId}`,
    elements: [
      { type: 'button', action_id: ACTIONS.approve, text: plain('Approve'), style: 'primary', value: postId },
      { type: 'button', action_id: ACTIONS.schedule, text: plain('Schedule'), value: postId },
      { type: 'button', action_id: ACTIONS.edit, text: plain('Edit caption'), value: postId },
      {
        type: 'button',
        action_id: ACTIONS.reject,
        text: plain('Reject'),
        style: 'danger',
        value: postId,
        confirm: {
          title: plain('Reject this draft?'),
          text: plain('The draft is deleted from Postdeck.'),
          confirm: plain('Reject'),
          deny: plain('Keep it'),
        },
      },
    ],
  };
}

/** The Schedule modal: a date-time picker, the card's place kept in private_metadata. */
export function scheduleModal(metadata: string, initial: Date): Block {
  return {
    type: 'modal',
    callback_id: VIEWS.schedule,
    private_metadata: metadata,
    title: plain('Schedule the post'),
    submit: plain('Schedule'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: 'when',
        label: plain('Publish at'),
        element: { type: 'datetimepicker', action_id: 'at', initial_date_time: Math.floor(initial.getTime() / 1000) },
      },
    ],
  };
}

/** The Edit caption modal, filled with the caption as it stands. */
export function editModal(metadata: string, caption: string, max: number): Block {
  return {
    type: 'modal',
    callback_id: VIEWS.edit,
    private_metadata: metadata,
    title: plain('Edit the caption'),
    submit: plain('Save'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: 'caption',
        label: plain('Caption'),
        element: {
          type: 'plain_text_input',
          action_id: 'text',
          multiline: true,
          max_length: max,
          initial_value: caption.slice(0, max),
        },
      },
    ],
  };
}

export function plain(text: string): Block {
  return { type: 'plain_text', text: truncate(text, 150), emoji: true };
}

export function mrkdwn(text: string): Block {
  return { type: 'mrkdwn', text };
}

/** Slack's three control characters, escaped as its docs ask. */
export function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
