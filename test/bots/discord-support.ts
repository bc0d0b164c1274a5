import { expect } from 'vitest';
import { createDiscordBot } from '../../src/bots/discord/bot.js';
import type { DiscordConfig } from '../../src/settings/chat.js';
import { createRestDraft } from '../support/chat-cards.js';
import { approveDeviceCode } from '../../src/core/device/approve.js';
import {
  startDiscordEmulator,
  type DiscordSender,
  type DiscordUser,
  type EmulatedMessage,
  type RunningDiscordEmulator,
  type Sent,
} from '../../src/emulators/discord/server.js';
import { makeJpeg } from '../support/media.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { connectCreator, PUBLIC_SETTINGS, storeMedia, type PublishingWorld } from '../publishing/support.js';
import { eventually } from './slack-support.js';

export { eventually } from './slack-support.js';

/** The Discord bot on a test server over the world's database, talking to a Discord emulator. */
export interface DiscordWorld {
  discord: RunningDiscordEmulator;
  guildId: string;
  /** The channel approvals go to. */
  channelId: string;
  config: DiscordConfig;
  server: TestServer;
  sender: DiscordSender;
  close(): Promise<void>;
}

export async function startDiscordWorld(w: PublishingWorld): Promise<DiscordWorld> {
  // Tests check what the bot answers; how fast is the bench's business (Discord's own limit is 3 s).
  const discord = await startDiscordEmulator({ answerDeadlineMs: 60_000 });
  const guildId = discord.state.addGuild('Acme Studio');
  const channelId = discord.state.addChannel(guildId);
  const config: DiscordConfig = {
    applicationId: discord.state.application.id,
    publicKey: discord.publicKey,
    botToken: discord.state.application.botToken,
    apiUrl: discord.apiUrl,
  };
  const settings = { publicUrl: 'http://localhost', devicePrefix: undefined };
  const bot = createDiscordBot(w.t.deps, config, settings, w.t.deps.logger);
  Object.assign(w.t.deps.chat, { discord: bot.gateway });
  const server = await startTestServer(w.t, { app: { chatEndpoints: bot.endpoints } });
  return {
    discord,
    guildId,
    channelId,
    config,
    server,
    sender: discord.sender(`${server.url}/discord/interactions`),
    async close() {
      await server.stop();
      await discord.stop();
    },
  };
}

/** A member of the world's server, using Postdeck from the approvals channel. */
export function member(d: DiscordWorld, id: string, username: string): DiscordUser {
  return { id, username, guildId: d.guildId, channelId: d.channelId };
}

/** The reply a deferred command ends up with: `@original` once it stops "thinking" and holds `text`. */
export function commandReply(d: DiscordWorld, sent: Sent, text: string | RegExp): Promise<EmulatedMessage> {
  return eventually(() => {
    const original = d.discord.state.original(sent.interaction.id);
    const matches = typeof text === 'string' ? original?.content.includes(text) : text.test(original?.content ?? '');
    return matches ? original : undefined;
  });
}

/** Links the server through `/postdeck login`, approving the code as the tenant's owner. */
export async function linkGuild(
  w: PublishingWorld,
  d: DiscordWorld,
  who: DiscordUser,
): Promise<{ sent: Sent; shown: EmulatedMessage; linked: EmulatedMessage }> {
  const sent = await d.sender.command(who, ['login']);
  expect(sent.body).toEqual({ type: 5, data: { flags: 64 } });
  const withCode = await commandReply(d, sent, 'Your code is');
  const shown = { ...withCode, components: [...withCode.components] };
  const code = /\*\*([A-Z0-9-]+)\*\*/.exec(shown.content)?.[1];
  if (!code) throw new Error(`no code in ${shown.content}`);
  const owner = {
    workspaceId: w.tenant.workspaceId,
    accountId: w.tenant.accountId,
    actor: { type: 'user' as const, userId: w.tenant.userId },
  };
  await approveDeviceCode(w.t.deps, owner, { userCode: code, address: '127.0.0.1' });
  const linked = await commandReply(d, sent, 'Linked to the Postdeck workspace');
  return { sent, shown, linked };
}

/** A photo draft made through the REST API, and the card the bot posted for it in the approvals channel. */
export async function draftWithCard(
  w: PublishingWorld,
  d: DiscordWorld,
  caption: string,
  slides = 2,
): Promise<{ postId: string; openId: string; card: EmulatedMessage }> {
  const { openId, platform } = await connectCreator(w);
  const media = [];
  for (let i = 0; i < slides; i += 1) media.push(await storeMedia(w, await makeJpeg(1080, 1920)));
  const postId = await createRestDraft(
    w,
    platform._id,
    caption,
    media.map((m) => m._id),
    { ...PUBLIC_SETTINGS, auto_add_music: true },
  );
  const card = await eventually(() =>
    d.discord.state
      .channel(d.channelId)
      .find((m) => (m.embeds[0] as { description?: string } | undefined)?.description === caption),
  );
  return { postId, openId, card };
}

/** The card's first embed, as the channel shows it now. */
export function cardEmbed(card: EmulatedMessage): {
  title: string;
  description?: string;
  fields: { name: string; value: string }[];
  image?: { url: string };
  url?: string;
} {
  return card.embeds[0] as ReturnType<typeof cardEmbed>;
}

/** A field's value on the card's first embed. */
export function field(card: EmulatedMessage, name: string): string | undefined {
  return cardEmbed(card).fields.find((each) => each.name === name)?.value;
}
