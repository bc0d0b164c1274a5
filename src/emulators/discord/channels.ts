import type Router from '@koa/router';
import type { Context } from 'koa';
import { DiscordError, unknownChannel, unknownMessage } from './errors.js';
import { apiMessage, createMessage, editMessage } from './messages.js';
import { EPHEMERAL, type DiscordEmulatorState, type EmulatedMessage } from './state.js';

/** The guild and channel message routes a bot calls with its token (checked before these run). */
export function registerChannels(router: Router, state: DiscordEmulatorState): void {
  router.get('/guilds/:guild', (ctx) => {
    const name = state.guilds.get(ctx.params.guild as string);
    if (name === undefined) throw new DiscordError(404, 10004, 'Unknown Guild');
    ctx.body = { id: ctx.params.guild, name, icon: null, features: [], owner_id: state.snowflake(), roles: [] };
  });

  router.post('/channels/:channel/messages', (ctx) => {
    const channelId = channelOf(state, ctx);
    const body = (ctx.state as { body?: Record<string, unknown> }).body ?? {};
    // A bot cannot post ephemeral messages; only interaction responses can be.
    const message = createMessage(
      state,
      { channelId, author: 'bot', interactionId: null },
      { ...body, flags: Number(body.flags ?? 0) & ~EPHEMERAL },
    );
    ctx.body = apiMessage(state, message);
  });

  router.get('/channels/:channel/messages/:message', (ctx) => {
    ctx.body = apiMessage(state, messageOf(state, ctx));
  });

  router.patch('/channels/:channel/messages/:message', (ctx) => {
    const message = messageOf(state, ctx);
    const body = (ctx.state as { body?: Record<string, unknown> }).body ?? {};
    ctx.body = apiMessage(state, editMessage(message, { ...body, flags: message.flags }));
  });

  router.delete('/channels/:channel/messages/:message', (ctx) => {
    messageOf(state, ctx).deleted = true;
    ctx.status = 204;
  });
}

function channelOf(state: DiscordEmulatorState, ctx: Context): string {
  const channelId = (ctx as Context & { params: Record<string, string> }).params.channel ?? '';
  if (!state.channels.has(channelId)) throw unknownChannel();
  return channelId;
}

/** A message everyone in the channel sees (ephemeral ones are not reachable through the channel). */
function messageOf(state: DiscordEmulatorState, ctx: Context): EmulatedMessage {
  const channelId = channelOf(state, ctx);
  const id = (ctx as Context & { params: Record<string, string> }).params.message ?? '';
  const message = state.channel(channelId).find((each) => each.id === id);
  if (!message) throw unknownMessage();
  return message;
}
