import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/core/auth/api-keys.js';
import { runPostdeck } from '../support/spawn.js';
import { emulatorPosts, startWorld, type PublishingWorld, SLOW } from '../publishing/support.js';
import {
  cardEmbed,
  commandReply,
  draftWithCard,
  eventually,
  field,
  linkGuild,
  member,
  startDiscordWorld,
  type DiscordWorld,
} from './discord-support.js';

let w: PublishingWorld;
let d: DiscordWorld;
beforeAll(async () => {
  w = await startWorld();
  d = await startDiscordWorld(w);
});
afterAll(async () => {
  await d?.close();
  await w?.close();
});

const ANA_ID = '210000000000000001';
const BEN_ID = '210000000000000002';
const EPHEMERAL = 64;

/** The instant a wall-clock time names in `zone`, found by trying every quarter-hour offset (independent of the bot's code). */
function instantIn(zone: string, wallClock: string): Date {
  const [date, time] = wallClock.split(' ') as [string, string];
  const naive = Date.parse(`${date}T${time}:00Z`);
  for (let minutes = -14 * 60; minutes <= 14 * 60; minutes += 15) {
    const candidate = new Date(naive - minutes * 60_000);
    if (candidate.toLocaleString('sv-SE', { timeZone: zone }) === `${date} ${time}:00`) return candidate;
  }
  throw new Error(`${wallClock} does not exist in ${zone}`);
}

async function post(postId: string) {
  return w.t.deps.db.posts.findOne({ _id: postId });
}

describe('the Discord bot', () => {
  it('links through /postdeck login: the code only to the invoker, then that reply says linked', SLOW, async () => {
    const ana = member(d, ANA_ID, 'ana');
    const { sent, shown, linked } = await linkGuild(w, d, ana);
    expect(shown.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(shown.content).toMatch(/Only you can see this/);
    const button = (shown.components[0] as { components: { style: number; url: string }[] }).components[0]!;
    expect(button).toMatchObject({ style: 5, url: expect.stringContaining('http://localhost/') });
    expect(linked.id).toBe(shown.id);
    expect(linked.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(linked.components).toEqual([]);
    expect(d.discord.state.channel(d.channelId).some((m) => m.interactionId === sent.interaction.id)).toBe(false);

    const link = await w.t.deps.db.chatLinks.findOne({ _id: `discord:${d.guildId}` });
    expect(link).toMatchObject({ linkedByChatUserId: ANA_ID, approvers: [ANA_ID] });
    const key = w.t.deps.secrets.open(link!.sealedApiKey);
    const platforms = await fetch(`${w.server.url}/public/v1/platforms`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(platforms.status).toBe(200);
    const login = await w.t.deps.db.chatLogins.findOne({ platform: 'discord', teamId: d.guildId });
    expect(w.t.deps.secrets.open(login!.reply.sealed)).toBe(sent.interaction.token);
  });

  it('sends approvals to the channel /postdeck approvals here is typed in', SLOW, async () => {
    const sent = await d.sender.command(member(d, ANA_ID, 'ana'), ['approvals', 'here']);
    const reply = await commandReply(d, sent, 'Draft approvals now go to');
    expect(reply.content).toContain(`<#${d.channelId}>`);
    expect(reply.flags & EPHEMERAL).toBe(EPHEMERAL);
    const link = await w.t.deps.db.chatLinks.findOne({ _id: `discord:${d.guildId}` });
    expect(link!.approvalsChannelId).toBe(d.channelId);
  });

  it('posts a card for a REST draft: slide gallery, caption, account, privacy, author, music', SLOW, async () => {
    const { card } = await draftWithCard(w, d, 'Two slides for the card');
    const embed = cardEmbed(card);
    expect(embed.title).toBe('Draft waiting for approval');
    expect(embed.description).toBe('Two slides for the card');
    const images = card.embeds.filter((e) => (e as { image?: unknown }).image);
    expect(images).toHaveLength(2);
    expect(new Set(card.embeds.map((e) => (e as { url?: string }).url)).size).toBe(1);
    expect(field(card, 'Account')).toMatch(/\(@creator\./);
    expect(field(card, 'Privacy')).toBe('Everyone');
    expect(field(card, 'Created by')).toMatch(/API key/);
    expect(field(card, 'Music')).toMatch(/cannot attach trending music.*recommended music/);
    const buttons = (card.components[0] as { components: { custom_id: string; style: number }[] }).components;
    expect(buttons.map((b) => [b.custom_id.split(':')[1], b.style])).toEqual([
      ['approve', 3],
      ['schedule', 1],
      ['edit', 2],
      ['reject', 4],
    ]);
    expect(card.allowedMentions).toEqual({ parse: [] });
  });

  it('publishes on Approve, redraws the card and replies under it with the TikTok link', SLOW, async () => {
    const { postId, openId, card } = await draftWithCard(w, d, 'Approve me from Discord');
    const click = await d.sender.click(member(d, ANA_ID, 'ana'), card, `postdeck:approve:${postId}`);
    expect(click.body).toEqual({ type: 6 });
    expect(click.interaction.response?.problems).toEqual([]);
    await eventually(async () => (await post(postId))?.state === 'PUBLISHED', 60_000);
    const published = (await post(postId))!;
    expect(published.releaseUrl).toMatch(/^https:\/\//);
    const seen = await emulatorPosts(w, openId);
    expect(seen.posts.map((p) => p.status)).toEqual(['PUBLISH_COMPLETE']);
    const reply = await eventually(() => d.discord.state.channel(d.channelId).find((m) => m.replyTo === card.id));
    expect(reply.content).toBe(`Published on TikTok: ${published.releaseUrl}`);
    await eventually(() => cardEmbed(card).title === 'Published on TikTok');
    expect(card.components).toEqual([]);
    expect(field(card, 'On TikTok')).toContain(published.releaseUrl);
    expect(field(card, 'History')).toContain(`<@${ANA_ID}> approved`);
  });

  it('schedules through the form, reading the typed time in the link time zone', SLOW, async () => {
    const ana = member(d, ANA_ID, 'ana');
    const zone = await d.sender.command(ana, ['timezone'], [{ type: 3, name: 'zone', value: 'europe/berlin' }]);
    await commandReply(d, zone, 'Schedule times are now read in Europe/Berlin');
    expect((await w.t.deps.db.chatLinks.findOne({ _id: `discord:${d.guildId}` }))!.timeZone).toBe('Europe/Berlin');
    const audited = { action: 'chat.link_changed' as const, 'details.timeZone': 'Europe/Berlin' };
    expect(await w.t.deps.db.audit.find(audited).toArray()).toMatchObject([
      { surface: 'discord', chatUser: { platform: 'discord', id: ANA_ID, name: '@ana' } },
    ]);

    const { postId, card } = await draftWithCard(w, d, 'Scheduled from Berlin');
    const opened = await d.sender.click(ana, card, `postdeck:schedule:${postId}`);
    expect(opened.interaction.response?.problems).toEqual([]);
    const modal = opened.body as {
      type: number;
      data: { components: { label: string; component: { value: string } }[] };
    };
    expect(modal.type).toBe(9);
    expect(modal.data.components[0]!.label).toBe('Publish at (YYYY-MM-DD HH:MM, Europe/Berlin)');
    const prefilled = instantIn('Europe/Berlin', modal.data.components[0]!.component.value);
    const ahead = prefilled.getTime() - Date.now();
    expect(ahead).toBeGreaterThan(59 * 60_000);
    expect(ahead).toBeLessThanOrEqual(76 * 60_000);
    expect(prefilled.getUTCMinutes() % 15).toBe(0);

    const unreadable = await d.sender.submitModal(ana, opened, { at: 'tomorrow at noon' });
    expect(unreadable.body).toMatchObject({
      type: 4,
      data: { flags: EPHEMERAL, content: expect.stringMatching(/YYYY-MM-DD HH:MM/) },
    });
    const past = await d.sender.submitModal(ana, opened, { at: '2020-01-01 10:00' });
    expect(past.body).toMatchObject({ type: 4, data: { content: expect.stringMatching(/already passed/) } });
    expect((await post(postId))!.state).toBe('DRAFT');

    const day = new Date(Date.now() + 3 * 86_400_000)
      .toLocaleString('sv-SE', { timeZone: 'Europe/Berlin' })
      .slice(0, 10);
    const typed = `${day} 10:30`;
    const submitted = await d.sender.submitModal(ana, opened, { at: typed });
    expect(submitted.body).toEqual({ type: 6 });
    await eventually(async () => (await post(postId))?.state === 'QUEUE');
    const expected = instantIn('Europe/Berlin', typed);
    expect((await post(postId))!.scheduledFor!.toISOString()).toBe(expected.toISOString());
    await eventually(() => cardEmbed(card).title === 'Scheduled');
    expect(field(card, 'Publishes')).toContain(`<t:${expected.getTime() / 1000}:F>`);
    expect(card.components).toEqual([]);
  });

  it('publishes the caption edited through the form', SLOW, async () => {
    const ana = member(d, ANA_ID, 'ana');
    const { postId, openId, card } = await draftWithCard(w, d, 'Caption before the edit');
    const opened = await d.sender.click(ana, card, `postdeck:edit:${postId}`);
    const form = opened.body as {
      type: number;
      data: { components: { component: { value: string; max_length: number } }[] };
    };
    expect(form.type).toBe(9);
    expect(form.data.components[0]!.component).toMatchObject({ value: 'Caption before the edit', max_length: 4000 });
    const edited = 'Caption after the edit, typed in Discord #postdeck';
    expect((await d.sender.submitModal(ana, opened, { caption: edited })).body).toEqual({ type: 6 });
    await eventually(() => cardEmbed(card).description?.includes('Caption after the edit'));
    expect(field(card, 'History')).toContain('edited the caption');

    const again = await d.sender.click(ana, card, `postdeck:edit:${postId}`);
    expect((again.body as typeof form).data.components[0]!.component.value).toBe(edited);
    await d.sender.click(ana, card, `postdeck:approve:${postId}`);
    await eventually(async () => (await post(postId))?.state === 'PUBLISHED', 60_000);
    expect((await post(postId))!.content).toBe(edited);
    const [published] = (await emulatorPosts(w, openId)).posts;
    expect((published!.request.post_info as { description?: string }).description).toBe(edited);
  });

  it('deletes the draft on Reject and says so on the card', SLOW, async () => {
    const { postId, card } = await draftWithCard(w, d, 'Reject me');
    const click = await d.sender.click(member(d, ANA_ID, 'ana'), card, `postdeck:reject:${postId}`);
    expect(click.body).toEqual({ type: 6 });
    await eventually(() => cardEmbed(card).title === 'Rejected');
    expect(await post(postId)).toBeNull();
    expect(card.components).toEqual([]);
    expect(field(card, 'History')).toContain('rejected it');
    const trail = await w.t.deps.db.audit.find({ action: 'post.rejected', 'subject.id': postId }).toArray();
    expect(trail).toMatchObject([
      { surface: 'discord', actor: { type: 'api_key' }, chatUser: { platform: 'discord', id: ANA_ID } },
    ]);
  });

  it('refuses someone who is not an approver, only to them, and changes nothing', SLOW, async () => {
    const ben = member(d, BEN_ID, 'ben');
    const { postId, card } = await draftWithCard(w, d, 'Only approvers may touch this');
    const versions = card.edits.length;
    const click = await d.sender.click(ben, card, `postdeck:approve:${postId}`);
    expect(click.body).toEqual({ type: 6 });
    const [refusal] = await eventually(() => {
      const followUps = d.discord.state.followUps(click.interaction.id);
      return followUps.length > 0 ? followUps : undefined;
    });
    expect(refusal!.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(refusal!.content).toMatch(/not one of this workspace's Postdeck approvers/);
    expect(d.discord.state.channel(d.channelId)).not.toContain(refusal);

    const schedule = await d.sender.click(ben, card, `postdeck:schedule:${postId}`);
    expect(schedule.body).toMatchObject({
      type: 4,
      data: { flags: EPHEMERAL, content: expect.stringMatching(/not one of/) },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await post(postId))!.state).toBe('DRAFT');
    expect(card.edits.length).toBe(versions);
    expect(cardEmbed(card).title).toBe('Draft waiting for approval');
    expect((await w.t.deps.db.chatCards.findOne({ postId }))!.actions).toEqual([]);

    const add = await d.sender.command(
      member(d, ANA_ID, 'ana'),
      ['approvers', 'add'],
      [{ type: 6, name: 'user', value: BEN_ID }],
    );
    await commandReply(d, add, `<@${BEN_ID}>`);
    expect((await w.t.deps.db.chatLinks.findOne({ _id: `discord:${d.guildId}` }))!.approvers).toEqual([ANA_ID, BEN_ID]);
  });
});

describe('Discord requests', () => {
  it('answers PING with PONG', async () => {
    const ping = await d.sender.ping();
    expect(ping).toMatchObject({ status: 200, body: { type: 1 } });
  });

  it('refuses forged signatures and stale timestamps with 401, and nothing happens', SLOW, async () => {
    const ana = member(d, ANA_ID, 'ana');
    const tokyo = [{ type: 3, name: 'zone', value: 'Asia/Tokyo' }];
    const forged = await d.sender.command(ana, ['timezone'], tokyo, { forge: true });
    const stale = await d.sender.command(ana, ['timezone'], tokyo, {
      timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect([forged.status, stale.status]).toEqual([401, 401]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const sent of [forged, stale]) {
      expect(sent.interaction.response).toBeNull();
      expect(d.discord.state.original(sent.interaction.id)).toBeUndefined();
    }
    expect((await w.t.deps.db.chatLinks.findOne({ _id: `discord:${d.guildId}` }))!.timeZone).not.toBe('Asia/Tokyo');
  });

  it('acts once on an interaction delivered twice', SLOW, async () => {
    const ana = member(d, ANA_ID, 'ana');
    const { postId, card } = await draftWithCard(w, d, 'Edited once only');
    const opened = await d.sender.click(ana, card, `postdeck:edit:${postId}`);
    const first = await d.sender.submitModal(ana, opened, { caption: 'Edited exactly once' });
    const replay = await d.sender.resend(first.interaction);
    expect([first.body, replay.body]).toEqual([{ type: 6 }, { type: 6 }]);
    await eventually(() => cardEmbed(card).description === 'Edited exactly once');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const tracked = await w.t.deps.db.chatCards.findOne({ postId });
    expect(tracked!.actions.map((a) => a.action)).toEqual(['edit']);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const response = await fetch(`${d.server.url}/discord/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 1, padding: 'x'.repeat(1024 * 1024) }),
    });
    expect(response.status).toBe(413);
  });

  it('answered every interaction with a response Discord accepts for its kind', () => {
    const answered = [...d.discord.state.interactions.values()].filter((i) => i.response);
    expect(answered.length).toBeGreaterThanOrEqual(15);
    expect(answered.flatMap((i) => i.response!.problems)).toEqual([]);
  });

  it('tells someone using /postdeck outside a server to use it in one', async () => {
    const sent = await d.sender.command({ ...member(d, ANA_ID, 'ana'), guildId: null }, ['status']);
    expect(sent.body).toMatchObject({
      type: 4,
      data: { flags: EPHEMERAL, content: expect.stringMatching(/in a server/) },
    });
  });
});

describe('postdeck discord register-commands', () => {
  it(
    'registers /postdeck in a server with the DISCORD_* settings, and says what is missing without them',
    SLOW,
    async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'postdeck-discord-cli-'));
      try {
        const env = {
          DATA_DIR: dataDir,
          DISCORD_APPLICATION_ID: d.config.applicationId,
          DISCORD_PUBLIC_KEY: d.config.publicKey,
          DISCORD_BOT_TOKEN: d.config.botToken,
          DISCORD_API_URL: d.config.apiUrl,
        };
        const out = await runPostdeck(['discord', 'register-commands', '--guild', d.guildId], env);
        const [command] = d.discord.state.guildCommands.get(d.guildId) ?? [];
        expect(command).toMatchObject({
          name: 'postdeck',
          application_id: d.config.applicationId,
          guild_id: d.guildId,
        });
        const options = (command!.options as { name: string; options?: { name: string }[] }[]).map((o) => [
          o.name,
          (o.options ?? []).map((sub) => sub.name),
        ]);
        expect(options).toEqual([
          ['login', []],
          ['status', []],
          ['logout', []],
          ['approvals', ['here']],
          ['approvers', ['add', 'remove']],
          ['timezone', ['zone']],
          ['help', []],
        ]);
        expect(out).toContain(`/postdeck (id ${command!.id})`);
        expect(d.discord.state.requests.filter((r) => r.method === 'PUT').map((r) => r.auth)).toEqual(['bot']);

        const missing = await runPostdeck(['discord', 'register-commands'], { DATA_DIR: dataDir }).then(
          () => 'succeeded',
          (error: Error) => error.message,
        );
        expect(missing).toMatch(/set DISCORD_APPLICATION_ID, DISCORD_PUBLIC_KEY and DISCORD_BOT_TOKEN/);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});

describe('/postdeck status', () => {
  it('says the link key works, and once it is revoked in Postdeck that it no longer does', SLOW, async () => {
    const ana = member(d, ANA_ID, 'ana');
    const works = await commandReply(d, await d.sender.command(ana, ['status']), 'Linked to the Postdeck workspace');
    expect(works.content).toContain('Its key works: Postdeck accepted it just now.');

    const link = await w.t.deps.db.chatLinks.findOne({ _id: `discord:${d.guildId}` });
    await revokeApiKey(w.t.deps, ownerScope(), link!.apiKeyId);
    const revoked = await commandReply(d, await d.sender.command(ana, ['status']), 'Linked to the Postdeck workspace');
    expect(revoked.content).toContain('Its key no longer works');
    expect(revoked.content).toContain('Run `/postdeck login` to link again.');
    expect(revoked.content).not.toContain('Its key works');
  });
});

function ownerScope() {
  const { workspaceId, accountId, userId } = w.tenant;
  return { workspaceId, accountId, actor: { type: 'user' as const, userId } };
}
