import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DiscordAPIError, REST, Routes } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordEmulator, type RunningDiscordEmulator } from '../../src/emulators/discord/server.js';

// The emulator as discord.js's own REST client sees it, with an app that answers every interaction
// with a bare 202 and responds through the callback route (the other way Discord allows).
let discord: RunningDiscordEmulator;
let app: Server;
let rest: REST;
let guildId: string;
let channelId: string;
const user = () => ({ id: '220000000000000001', username: 'cleo', guildId, channelId });

beforeAll(async () => {
  discord = await startDiscordEmulator();
  guildId = discord.state.addGuild('Emulated Guild');
  channelId = discord.state.addChannel(guildId);
  app = createServer((req, res) => {
    req.resume();
    req.once('end', () => res.writeHead(202).end());
  });
  app.listen(0, '127.0.0.1');
  await once(app, 'listening');
  rest = new REST({ version: '10', api: discord.apiUrl, retries: 0 }).setToken(discord.state.application.botToken);
});
afterAll(async () => {
  app?.close();
  await discord?.stop();
});

async function failure(promise: Promise<unknown>): Promise<{ status: number; code: number | string }> {
  const error = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as DiscordAPIError | null;
  if (!error) throw new Error('expected the call to fail');
  return { status: error.status, code: error.code };
}

async function interaction() {
  const sender = discord.sender(`http://127.0.0.1:${(app.address() as AddressInfo).port}/`);
  const sent = await sender.command(user(), ['status']);
  expect(sent.status).toBe(202);
  expect(sent.interaction.response).toBeNull();
  return sent.interaction;
}

describe('the Discord emulator', () => {
  it('takes one callback per interaction, then follow-ups and @original edits with its token', async () => {
    const { id, token } = await interaction();
    const appId = discord.state.application.id;
    const deferred = { type: 5, data: { flags: 64 } };
    await rest.post(Routes.interactionCallback(id, token), { body: deferred, auth: false });
    expect(await failure(rest.post(Routes.interactionCallback(id, token), { body: deferred, auth: false }))).toEqual({
      status: 400,
      code: 40060,
    });
    const edited = (await rest.patch(Routes.webhookMessage(appId, token, '@original'), {
      body: { content: 'done' },
      auth: false,
    })) as { content: string; flags: number };
    expect(edited).toMatchObject({ content: 'done', flags: 64 });
    await rest.post(Routes.webhook(appId, token), { body: { content: 'only you', flags: 64 }, auth: false });
    await rest.post(Routes.webhook(appId, token), { body: { content: 'everyone' }, auth: false });
    expect(discord.state.followUps(id).map((m) => m.content)).toEqual(['only you', 'everyone']);
    expect(discord.state.channel(channelId).map((m) => m.content)).toEqual(['everyone']);
    expect(discord.state.original(id)!.edits).toHaveLength(1);
  });

  it('answers Unknown Webhook for a token it never issued or that is older than 15 minutes', async () => {
    const { token } = await interaction();
    const appId = discord.state.application.id;
    const edit = (t: string) =>
      rest.patch(Routes.webhookMessage(appId, t, '@original'), { body: { content: 'x' }, auth: false });
    expect(await failure(edit('not-a-token'))).toEqual({ status: 404, code: 10015 });
    const realNow = discord.state.now;
    discord.state.now = () => realNow() + 16 * 60_000;
    try {
      expect(await failure(edit(token))).toEqual({ status: 404, code: 10015 });
    } finally {
      discord.state.now = realNow;
    }
  });

  it('checks the bot token and messages as Discord does', async () => {
    const stranger = new REST({ version: '10', api: discord.apiUrl, retries: 0 }).setToken('not-the-token');
    const post = (client: REST, channel: string, body: unknown) =>
      client.post(Routes.channelMessages(channel), { body });
    expect(await failure(post(stranger, channelId, { content: 'hi' }))).toEqual({ status: 401, code: 0 });
    expect(await failure(post(rest, channelId, {}))).toEqual({ status: 400, code: 50006 });
    expect(await failure(post(rest, channelId, { embeds: new Array(11).fill({ title: 't' }) }))).toEqual({
      status: 400,
      code: 50035,
    });
    expect(await failure(post(rest, '1', { content: 'hi' }))).toEqual({ status: 404, code: 10003 });
    expect(await failure(rest.get(Routes.channelMessage(channelId, '1')))).toEqual({ status: 404, code: 10008 });
  });

  it('sends rate-limit headers and 429 past the limit', async () => {
    const limited = await startDiscordEmulator({ rateLimit: { limit: 2, windowMs: 60_000 } });
    try {
      const channel = limited.state.addChannel(limited.state.addGuild('Busy'));
      const send = () =>
        fetch(`${limited.apiUrl}/v10/channels/${channel}/messages`, {
          method: 'POST',
          headers: { authorization: `Bot ${limited.state.application.botToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'hi' }),
        });
      const first = await send();
      expect(first.headers.get('x-ratelimit-limit')).toBe('2');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      expect(first.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]+$/);
      expect(Number(first.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(0);
      await send();
      const third = await send();
      expect(third.status).toBe(429);
      expect(await third.json()).toMatchObject({ message: 'You are being rate limited.', global: false });
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.state.channel(channel)).toHaveLength(2);
    } finally {
      await limited.stop();
    }
  });
});
