import { setTimeout as sleep } from 'node:timers/promises';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { alreadyAcknowledged, unknownInteraction, unknownMessage, unknownWebhook } from './errors.js';
import { apiMessage, createMessage, editMessage } from './messages.js';
import { acknowledge, LOADING } from './responses.js';
import { EPHEMERAL, type DiscordEmulatorState, type EmulatedInteraction, type EmulatedMessage } from './state.js';

type Json = Record<string, unknown>;

/** Discord waits this long for an interaction's first response. */
const FIRST_RESPONSE_MS = 3000;

/**
 * The routes an interaction's token opens, none of which take the bot token: the first response
 * (callback, within 3 s, once), then for 15 minutes follow-ups and `@original` or follow-up edits.
 */
export function registerWebhooks(router: Router, state: DiscordEmulatorState): void {
  router.post('/interactions/:id/:token/callback', (ctx) => {
    const interaction = state.interactions.get(ctx.params.id as string);
    if (!interaction || interaction.token !== ctx.params.token) throw unknownInteraction();
    if (state.now() - interaction.createdAt > FIRST_RESPONSE_MS) throw unknownInteraction();
    if (interaction.response) throw alreadyAcknowledged();
    const ms = state.now() - interaction.createdAt;
    const response = acknowledge(state, interaction, { via: 'callback', status: 200, body: bodyOf(ctx), ms });
    if (ctx.query.with_response !== 'true') {
      ctx.status = 204;
      return;
    }
    const original = state.original(interaction.id);
    ctx.body = {
      interaction: { id: interaction.id, type: interaction.type, response_message_loading: false },
      resource: { type: (response.body as Json).type, ...(original ? { message: apiMessage(state, original) } : {}) },
    };
  });

  router.post('/webhooks/:app/:token', async (ctx) => {
    const interaction = await answeredInteraction(state, ctx);
    const message = createMessage(
      state,
      { channelId: interaction.channelId, author: 'interaction', interactionId: interaction.id },
      bodyOf(ctx),
    );
    interaction.followUpIds.push(message.id);
    ctx.body = apiMessage(state, message);
  });

  router.get('/webhooks/:app/:token/messages/:message', async (ctx) => {
    ctx.body = apiMessage(state, await webhookMessage(state, ctx));
  });

  router.patch('/webhooks/:app/:token/messages/:message', async (ctx) => {
    const message = await webhookMessage(state, ctx);
    const body = bodyOf(ctx);
    // Only the suppress-embeds flag may change; an ephemeral reply stays ephemeral, and it stops "thinking".
    const flags = (message.flags & EPHEMERAL) | (Number(body.flags ?? 0) & ~(EPHEMERAL | LOADING));
    ctx.body = apiMessage(state, editMessage(message, { ...body, flags }));
  });

  router.delete('/webhooks/:app/:token/messages/:message', async (ctx) => {
    (await webhookMessage(state, ctx)).deleted = true;
    ctx.status = 204;
  });
}

/** The interaction whose token the route names; an unknown or expired token is an unknown webhook. */
function liveInteraction(state: DiscordEmulatorState, ctx: Context): EmulatedInteraction {
  const params = (ctx as Context & { params: Record<string, string> }).params;
  const interaction = params.app === state.application.id ? state.liveInteraction(params.token ?? '') : undefined;
  if (!interaction) throw unknownWebhook();
  return interaction;
}

/**
 * The interaction, once its first response is in: Discord applies the HTTP answer before the token
 * serves anything, so a request that races ahead of it (the app works fast after answering) waits.
 */
async function answeredInteraction(state: DiscordEmulatorState, ctx: Context): Promise<EmulatedInteraction> {
  const interaction = liveInteraction(state, ctx);
  const deadline = Date.now() + FIRST_RESPONSE_MS;
  while (!interaction.response && Date.now() < deadline) await sleep(10);
  return interaction;
}

/** `@original` or one of the interaction's follow-ups. */
async function webhookMessage(state: DiscordEmulatorState, ctx: Context): Promise<EmulatedMessage> {
  const interaction = await answeredInteraction(state, ctx);
  const id = decodeURIComponent((ctx as Context & { params: Record<string, string> }).params.message ?? '');
  const message =
    id === '@original'
      ? state.original(interaction.id)
      : interaction.followUpIds.includes(id) || interaction.originalId === id
        ? state.message(id)
        : undefined;
  if (!message) throw unknownMessage();
  return message;
}

function bodyOf(ctx: Context): Json {
  return (ctx.state as { body?: Json }).body ?? {};
}
