import { DiscordError, unknownMessage } from './errors.js';
import { createMessage, editMessage, storeMessage } from './messages.js';
import { EPHEMERAL, type DiscordEmulatorState, type EmulatedInteraction, type InitialResponse } from './state.js';
import { checkModal } from './validate.js';

type Json = Record<string, unknown>;

/** Message flag of a deferred response still "thinking"; the first edit clears it. */
export const LOADING = 128;

/** The interaction types and the response types each may take (Discord's "Interaction Response Types"). */
const ALLOWED: Record<number, number[]> = {
  1: [1], // PING → PONG
  2: [4, 5, 9], // application command → message, deferred message, modal
  3: [4, 5, 6, 7, 9], // component → also deferred update, update
  5: [4, 5, 6, 7], // modal submit → no modal again
};

/**
 * Applies the app's first response to an interaction, as Discord does: a message (type 4) or a
 * "thinking" placeholder (type 5) becomes `@original`; an update (type 7) rewrites the message
 * the button sits on; a deferred update (6) and a modal (9) change nothing yet. What Discord would
 * refuse is kept in `problems` (and the response is not applied).
 */
export function acknowledge(
  state: DiscordEmulatorState,
  interaction: EmulatedInteraction,
  answer: Omit<InitialResponse, 'problems'>,
): InitialResponse {
  const problems = problemsOf(state, interaction, answer);
  const response: InitialResponse = { ...answer, problems };
  interaction.response = response;
  if (problems.length > 0) return response;
  const body = answer.body as Json;
  const data = (body.data ?? {}) as Json;
  try {
    if (body.type === 4) {
      const message = createMessage(state, whereOf(interaction), data);
      interaction.originalId = message.id;
    } else if (body.type === 5) {
      const flags = (Number(data.flags ?? 0) & EPHEMERAL) | LOADING;
      const placeholder = { content: '', embeds: [], components: [], flags };
      interaction.originalId = storeMessage(state, whereOf(interaction), placeholder).id;
    } else if (body.type === 7) {
      const target = interaction.messageId ? state.message(interaction.messageId) : undefined;
      if (!target) throw unknownMessage();
      editMessage(target, data);
    }
  } catch (error) {
    if (!(error instanceof DiscordError)) throw error;
    problems.push(`${error.code} ${error.message}: ${JSON.stringify(error.errors ?? {})}`);
  }
  return response;
}

function problemsOf(
  state: DiscordEmulatorState,
  interaction: EmulatedInteraction,
  answer: Omit<InitialResponse, 'problems'>,
): string[] {
  if (answer.status < 200 || answer.status > 299) return [`the app answered HTTP ${answer.status}`];
  if (answer.ms > state.answerDeadlineMs) {
    return [`the app took ${answer.ms} ms to answer; Discord gives up after ${state.answerDeadlineMs}`];
  }
  const body = answer.body as Json | null;
  const type = typeof body?.type === 'number' ? body.type : NaN;
  if (!(ALLOWED[interaction.type] ?? []).includes(type)) {
    return [`response type ${String(body?.type)} is not allowed for an interaction of type ${interaction.type}`];
  }
  if (type === 9) {
    const errors = checkModal((body?.data ?? {}) as Json);
    try {
      errors.throwIfAny();
    } catch (error) {
      if (error instanceof DiscordError) return [`invalid modal: ${JSON.stringify(error.errors)}`];
      throw error;
    }
  }
  return [];
}

function whereOf(interaction: EmulatedInteraction) {
  return { channelId: interaction.channelId, author: 'interaction' as const, interactionId: interaction.id };
}
