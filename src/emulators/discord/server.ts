import Router from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import { registerChannelView, type ChannelActions } from '../shared/channel-page.js';
import { listenEmulator, readRequestText } from '../shared/listen.js';
import { discordChannelActions, type DiscordPerson } from './channel-view.js';
import { registerChannels } from './channels.js';
import { registerCommands } from './commands.js';
import { DiscordError, invalidJson, unauthorized } from './errors.js';
import { rateLimits, type RateLimitSettings } from './rate-limits.js';
import { DiscordSender } from './sender.js';
import { DiscordEmulatorState } from './state.js';
import { renderChannel } from './viewer.js';
import { registerWebhooks } from './webhooks.js';

export { DiscordEmulatorState, EPHEMERAL, INTERACTION_TOKEN_TTL_MS } from './state.js';
export type { EmulatedInteraction, EmulatedMessage, InitialResponse, RegisteredCommand } from './state.js';
export { DiscordSender, type DiscordUser, type SendOptions, type Sent } from './sender.js';
export type { DiscordPerson } from './channel-view.js';

export interface DiscordEmulatorOptions {
  port?: number;
  host?: string;
  application?: { id: string; botToken: string };
  rateLimit?: RateLimitSettings;
  /**
   * How long an interaction's answer may take before it counts as lost, as Discord's 3 s do. Tests
   * of what the app answers raise it, so a busy machine does not turn a slow answer into a lost one.
   */
  answerDeadlineMs?: number;
}

export interface RunningDiscordEmulator {
  url: string;
  /** What the app's DISCORD_API_URL is set to: `${url}/api` (discord.js adds `/v10`). */
  apiUrl: string;
  state: DiscordEmulatorState;
  /** Signs and sends interactions into the app at `target`, as Discord does. */
  sender(target: string): DiscordSender;
  /** The application's public key (64 hex digits), for DISCORD_PUBLIC_KEY. */
  publicKey: string;
  /**
   * Makes the channel views interactive for one person of a guild: what they type and click there
   * is sent, signed, to the app at `target`. Until then the views only show what the app posted.
   */
  connect(target: string, person: DiscordPerson): void;
  /** The channel view of `channelId`: `${url}/__control/channels/<id>`. */
  channelUrl(channelId: string): string;
  stop(): Promise<void>;
}

/**
 * Starts the local Discord emulator: the REST API v10 routes an HTTP-interactions bot calls (command
 * registration, channel messages, interaction callbacks, follow-ups and `@original` edits) with
 * Discord's error bodies, bot-token checks, 15-minute interaction tokens and rate-limit headers,
 * keeping what the app did for tests to read. Interactions go into the app, signed with the
 * application's Ed25519 key, through `sender()`.
 */
export async function startDiscordEmulator(options: DiscordEmulatorOptions = {}): Promise<RunningDiscordEmulator> {
  const state = new DiscordEmulatorState(
    options.application ?? { id: '1300000000000000001', botToken: 'MTMwMDAwMDAwMDAwMDAwMDAwMQ.emulated.bot-token' },
  );
  if (options.answerDeadlineMs !== undefined) state.answerDeadlineMs = options.answerDeadlineMs;
  const keys = DiscordSender.newKeys();
  const webhooks = new Router();
  registerWebhooks(webhooks, state);
  const bot = new Router();
  bot.use(requireBotToken(state));
  registerChannels(bot, state);
  registerCommands(bot, state);
  const api = new Router({ prefix: '/api/v10' });
  api.use(rateLimits(options.rateLimit ?? { limit: 50, windowMs: 1000 }, () => state.now()));
  api.use(webhooks.routes());
  api.use(bot.routes());

  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await readJson(ctx, state);
      await next();
      if (ctx.status === 404 && ctx.body === undefined) ctx.body = { message: '404: Not Found', code: 0 };
    } catch (error) {
      const known = error instanceof DiscordError ? error : new DiscordError(500, 0, '500: Internal Server Error');
      ctx.status = known.status;
      ctx.body = known.body;
    }
  });
  app.use(api.routes());
  // Not Discord's: a page drawing a channel, for people reviewing what the app posted (and trying it once connected).
  const control = new Router();
  let actions: ChannelActions | null = null;
  let viewer: string | null = null;
  registerChannelView(
    control,
    (channel) => renderChannel(state, channel, viewer),
    () => actions,
    (ctx) => ((ctx.state as { body?: unknown }).body ?? {}) as Record<string, unknown>,
  );
  app.use(control.routes());

  const server = await listenEmulator(app, options);
  const { url } = server;
  return {
    url,
    apiUrl: `${url}/api`,
    state,
    publicKey: DiscordSender.publicKeyHex(keys.publicKey),
    sender: (target) => new DiscordSender(state, target, keys),
    connect(target, person) {
      state.people.set(person.id, person.name);
      viewer = person.id;
      actions = discordChannelActions(state, new DiscordSender(state, target, keys), person);
    },
    channelUrl: (channelId) => `${url}/__control/channels/${encodeURIComponent(channelId)}`,
    stop: server.stop,
  };
}

/** Bot routes take `Authorization: Bot <token>`; anything else is Discord's bare 401. */
function requireBotToken(state: DiscordEmulatorState) {
  return async (ctx: Context, next: Next) => {
    if (ctx.get('authorization') !== `Bot ${state.application.botToken}`) throw unauthorized();
    await next();
  };
}

/** Reads a JSON body (discord.js sends JSON when there are no files) and records the request. */
async function readJson(ctx: Context, state: DiscordEmulatorState): Promise<void> {
  const text = await readRequestText(ctx.req);
  const auth = ctx.get('authorization');
  let body: unknown;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      throw invalidJson();
    }
  }
  const kind = !auth ? 'none' : auth === `Bot ${state.application.botToken}` ? 'bot' : 'wrong';
  // The channel view's own requests are not the app's.
  if (!ctx.path.startsWith('/__control/'))
    state.requests.push({ method: ctx.method, path: ctx.path, auth: kind, body });
  (ctx.state as { body?: unknown }).body = body;
}
