import {
  InteractionResponseType,
  Routes,
  type APIInteraction,
  type APIMessageComponentInteraction,
  type APIModalSubmitInteraction,
} from 'discord.js';
import { MAX_CHAT_CAPTION, type CardAction } from '../../core/chat/actions.js';
import { isFirstDelivery } from '../../core/chat/deliveries.js';
import { requireApprover, requireLink } from '../../core/chat/links.js';
import type { ApprovalCard } from '../../core/chat/gateway.js';
import { carryOutCardAction, recordCardAction } from '../../core/chat/recorded-actions.js';
import { currentCaption } from '../../core/chat/status.js';
import { cardMessage, parseButtonId } from './card.js';
import { editModal, FIELDS, parseFormId, scheduleModal, scheduleTimeFrom, submittedValue } from './modals.js';
import { ephemeral, failureText, followUpEphemeral, userOf, type Answer, type DiscordBot } from './replies.js';

const DEFERRED_UPDATE = { type: InteractionResponseType.DeferredMessageUpdate } as const;

/**
 * A card's button. Approve and Reject are recorded, acknowledged as a deferred update and done after
 * it; Schedule and Edit open a form, for approvers only (anyone else is refused before any form shows).
 * A redelivered interaction changes nothing.
 */
export async function onButton(bot: DiscordBot, interaction: APIMessageComponentInteraction): Promise<Answer> {
  const button = parseButtonId(interaction.data.custom_id);
  if (!button) return noLongerSupported(bot, interaction);
  if (button.action === 'approve' || button.action === 'reject') {
    return recordThenAct(bot, interaction, button.postId, { type: button.action });
  }
  if (!(await isFirstDelivery(bot.deps, `discord:${interaction.id}`))) return { response: DEFERRED_UPDATE };
  const teamId = interaction.guild_id ?? '';
  try {
    const link = await requireLink(bot.deps, 'discord', teamId);
    requireApprover(link, userOf(interaction)?.id ?? '');
    const data =
      button.action === 'schedule'
        ? scheduleModal(button.postId, link.timeZone, bot.deps.now())
        : editModal(button.postId, await currentCaption(bot.deps, 'discord', teamId, button.postId), MAX_CHAT_CAPTION);
    return { response: { type: InteractionResponseType.Modal, data } };
  } catch (error) {
    return { response: ephemeral(failureText(bot, error, 'button')) };
  }
}

/** A submitted Schedule or Edit form: checked at once (a bad time is told at once), then done like a button. */
export async function onModalSubmit(bot: DiscordBot, interaction: APIModalSubmitInteraction): Promise<Answer> {
  const form = parseFormId(interaction.data.custom_id);
  if (!form) return noLongerSupported(bot, interaction);
  const value = submittedValue(interaction.data.components, form.form === 'schedule-form' ? FIELDS.at : FIELDS.caption);
  let action: CardAction;
  if (form.form === 'schedule-form') {
    let zone: string;
    try {
      zone = (await requireLink(bot.deps, 'discord', interaction.guild_id ?? '')).timeZone;
    } catch (error) {
      return { response: ephemeral(failureText(bot, error, 'form')) };
    }
    const when = scheduleTimeFrom(value, zone, bot.deps.now());
    if ('problem' in when) return { response: ephemeral(when.problem) };
    action = { type: 'schedule', at: when.at };
  } else {
    const content = value.trim();
    if (!content) return { response: ephemeral('The caption cannot be empty.') };
    if (content.length > MAX_CHAT_CAPTION) {
      return { response: ephemeral(`The caption can be ${MAX_CHAT_CAPTION} characters at most.`) };
    }
    action = { type: 'edit', content };
  }
  return recordThenAct(bot, interaction, form.postId, action);
}

/** A button or form from an older Postdeck (an old card after a rename): told privately, nothing changes. */
function noLongerSupported(
  bot: DiscordBot,
  interaction: APIMessageComponentInteraction | APIModalSubmitInteraction,
): Answer {
  bot.logger.info({ customId: interaction.data.custom_id }, 'a Discord component Postdeck does not know');
  return { response: ephemeral('This button is no longer supported: Postdeck did nothing. Use a newer card.') };
}

/**
 * Records the click before it is acknowledged (the worker carries it out if this process dies before
 * it does); a redelivery is acknowledged and dropped.
 */
async function recordThenAct(
  bot: DiscordBot,
  interaction: APIMessageComponentInteraction | APIModalSubmitInteraction,
  postId: string,
  action: CardAction,
): Promise<Answer> {
  const user = userOf(interaction);
  const teamId = interaction.guild_id ?? '';
  const who = {
    platform: 'discord' as const,
    teamId,
    chatUserId: user?.id ?? '',
    chatUserName: user?.global_name ?? user?.username ?? user?.id ?? '',
    postId,
  };
  const message = interaction.message;
  const where = { place: { teamId, channelId: message?.channel_id ?? '' }, messageId: message?.id ?? '' };
  const deliveryId = `discord:${interaction.id}`;
  try {
    if (!(await recordCardAction(bot.deps, deliveryId, who, action, where))) return { response: DEFERRED_UPDATE };
  } catch (error) {
    return { response: ephemeral(failureText(bot, error, 'card action')) };
  }
  return { response: DEFERRED_UPDATE, after: () => act(bot, interaction, deliveryId) };
}

/** Carries the recorded click out and redraws the card; a refusal goes only to the person who clicked. */
async function act(bot: DiscordBot, interaction: APIInteraction, deliveryId: string): Promise<void> {
  let card: ApprovalCard | null;
  try {
    card = await carryOutCardAction(bot.deps, deliveryId);
  } catch (error) {
    await followUpEphemeral(bot, interaction.token, failureText(bot, error, 'card action'));
    return;
  }
  const message = interaction.message;
  if (!card || !message) return;
  await bot.rest.patch(Routes.channelMessage(message.channel_id, message.id), { body: cardMessage(card) });
}
