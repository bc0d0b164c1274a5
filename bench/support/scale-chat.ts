import { setTimeout as sleep } from 'node:timers/promises';
import { approveDeviceCode } from '../../src/core/device/approve.js';
import { startDiscordEmulator, type DiscordUser, type Sent } from '../../src/emulators/discord/server.js';
import { SlackSender, startSlackEmulator } from '../../src/emulators/slack/server.js';
import type { Cluster } from './cluster.js';
import type { Traffic } from './scale-traffic.js';
import type { Tenant } from './seed.js';

const SIGNING_SECRET = 'bench-scale-slack-signing-secret';
/** A person reads a card before pressing a button: clicking the instant it appears is not what is measured. */
const HUMAN_DELAY_MS = 2_000;
const SLACK_PERSON = { userId: 'U0BENCH', userName: 'bench', channelId: 'C0APPROVALS' };

/**
 * The Slack and Discord emulators for bench:scale: the environment that points the bots at them, the
 * `/postdeck login` and `/postdeck approvals here` that link a channel of each to the workspace, Approve
 * pressed on a draft's card as each sends it (signed), and the cards each channel holds per draft.
 */
export async function startChat() {
  const slack = await startSlackEmulator();
  const team = slack.state.addTeam('T0SCALE', 'scale');
  // Discord's own deadline for an answer is 3 s; on a busy two-core machine a slow answer is not a lost one.
  const discord = await startDiscordEmulator({ answerDeadlineMs: 60_000 });
  const guildId = discord.state.addGuild('Scale');
  const channelId = discord.state.addChannel(guildId);
  const member: DiscordUser = { id: '1300000000000000777', username: 'bench', guildId, channelId };
  const env = {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: team.botToken,
    SLACK_API_URL: slack.apiUrl,
    DISCORD_APPLICATION_ID: discord.state.application.id,
    DISCORD_PUBLIC_KEY: discord.publicKey,
    DISCORD_BOT_TOKEN: discord.state.application.botToken,
    DISCORD_API_URL: discord.apiUrl,
  };

  const notes = new Map<string, () => string>();
  return {
    env,
    /** Links the Slack channel and the Discord channel to the tenant's workspace through the proxy (a worker must run). */
    async link(proxyUrl: string, cluster: Cluster, tenant: Tenant): Promise<void> {
      const owner = {
        workspaceId: tenant.scope.workspaceId,
        accountId: tenant.scope.accountId,
        actor: { type: 'user' as const, userId: tenant.ownerUserId },
      };
      const approve = (code: string) =>
        approveDeviceCode(cluster.core.deps, owner, { userCode: code, address: '127.0.0.1' });
      const slackSender = new SlackSender(`${proxyUrl}/slack/events`, SIGNING_SECRET);
      const answer = (id: string, n: number) => () => slack.state.responses.get(id)?.[n]?.text as string | undefined;
      const slackCommand = async (text: string) => {
        const response = slack.newResponseUrl();
        const sent = await slackSender.command({
          team_id: team.id,
          team_domain: team.name,
          channel_id: SLACK_PERSON.channelId,
          channel_name: 'approvals',
          user_id: SLACK_PERSON.userId,
          user_name: SLACK_PERSON.userName,
          command: '/postdeck',
          text,
          api_app_id: 'A0POSTDECK',
          response_url: response.url,
          trigger_id: `${Date.now()}.${Math.random().toString(36).slice(2)}`,
        });
        if (sent.status !== 200) throw new Error(`/postdeck ${text} in Slack answered ${sent.status}`);
        return response.id;
      };
      const login = await slackCommand('login');
      const slackCode = /\*([A-Z]+-[A-Z]{4}-[A-Z]{4})\*/.exec(await until(answer(login, 0)))?.[1];
      if (!slackCode) throw new Error('Slack login showed no code');
      await approve(slackCode);
      await until(answer(login, 1));
      await until(answer(await slackCommand('approvals here'), 0));

      const discordSender = discord.sender(`${proxyUrl}/discord/interactions`);
      const reply = (sent: Sent, text: string) =>
        until(() => discord.state.original(sent.interaction.id)?.content.includes(text) && true);
      const discordLogin = await discordSender.command(member, ['login']);
      await reply(discordLogin, 'Your code is');
      const shown = discord.state.original(discordLogin.interaction.id)?.content ?? '';
      const discordCode = /\*\*([A-Z0-9-]+)\*\*/.exec(shown)?.[1];
      if (!discordCode) throw new Error(`Discord login showed no code: ${shown}`);
      await approve(discordCode);
      await reply(discordLogin, 'Linked to the Postdeck workspace');
      await reply(await discordSender.command(member, ['approvals', 'here']), 'Draft approvals now go to');
    },
    /** Presses Approve on the draft's card, in Slack or Discord, once the card is there; true when it was sent. */
    async approve(proxyUrl: string, traffic: Traffic, postId: string, where: 'slack' | 'discord'): Promise<boolean> {
      if (where === 'slack') {
        const card = await until(() => slackCards(postId)[0], 120_000).catch(() => undefined);
        if (!card) return false;
        await sleep(HUMAN_DELAY_MS);
        const sender = new SlackSender(`${proxyUrl}/slack/events`, SIGNING_SECRET);
        const response = slack.newResponseUrl();
        const payload = {
          type: 'block_actions',
          team: { id: team.id, domain: team.name },
          user: {
            id: SLACK_PERSON.userId,
            username: SLACK_PERSON.userName,
            name: SLACK_PERSON.userName,
            team_id: team.id,
          },
          api_app_id: 'A0POSTDECK',
          token: 'deprecated-verification-token',
          container: { type: 'message', message_ts: card.ts, channel_id: card.channel, is_ephemeral: false },
          trigger_id: `trigger-${Math.random().toString(36).slice(2)}`,
          channel: { id: card.channel, name: 'approvals' },
          message: { ts: card.ts, text: card.text, type: 'message' },
          response_url: response.url,
          actions: [
            {
              type: 'button',
              action_id: 'postdeck_approve',
              block_id: `postdeck_card_${postId}`,
              value: postId,
              action_ts: String(Date.now() / 1000),
            },
          ],
        };
        notes.set(postId, () => JSON.stringify(slack.state.responses.get(response.id) ?? []));
        const slackEdits = () => slackCards(postId)[0]?.edits.length ?? 0;
        return clickAndWait(slackEdits, () =>
          traffic.timed('Slack approve (POST /slack/events)', async () => (await sender.interaction(payload)).status),
        );
      }
      const card = await until(() => discordCards(postId)[0], 120_000).catch(() => undefined);
      if (!card) return false;
      await sleep(HUMAN_DELAY_MS);
      const sender = discord.sender(`${proxyUrl}/discord/interactions`);
      const discordEdits = () => discordCards(postId)[0]?.edits.length ?? 0;
      return clickAndWait(discordEdits, () =>
        traffic.timed('Discord approve (POST /discord/interactions)', async () => {
          const sent = await sender.click(member, card, `postdeck:approve:${postId}`);
          const id = sent.interaction.id;
          notes.set(postId, () =>
            JSON.stringify([sent.body, ...discord.state.channel(channelId).filter((m) => m.interactionId === id)]),
          );
          return sent.status;
        }),
      );
    },
    /** What the chat showed after Approve on `postId` (the answers to the click), for a report of one that did not take. */
    notesOn(postId: string): string {
      return notes.get(postId)?.() ?? '(no click)';
    },
    /** Cards per draft in the Slack channel and the Discord channel (top-level messages naming the post). */
    cardsOf(postId: string): { slack: number; discord: number } {
      return { slack: slackCards(postId).length, discord: discordCards(postId).length };
    },
    async stop() {
      await slack.stop();
      await discord.stop();
    },
  };

  function slackCards(postId: string) {
    return slack.state
      .channel(SLACK_PERSON.channelId)
      .filter((m) => m.threadTs === null && JSON.stringify(m).includes(`postdeck_card_${postId}`));
  }
  function discordCards(postId: string) {
    return discord.state
      .channel(channelId)
      .filter(
        (m) => m.replyTo === null && m.author === 'bot' && JSON.stringify(m).includes(`postdeck:approve:${postId}`),
      );
  }
}

export type ChatRig = Awaited<ReturnType<typeof startChat>>;

/**
 * Clicks once, then waits for the card to change (an edit). A click acknowledged by an API process
 * that then died is carried out by the worker's recovery job once its claim lapses (30 s, then the
 * next housekeeping run), so nobody clicks again; a card that never changes shows in the checks.
 */
async function clickAndWait(edits: () => number, click: () => Promise<boolean>) {
  const before = edits();
  if (!(await click())) return false;
  await until(() => edits() > before, 120_000).catch(() => undefined);
  return true;
}

/** Waits until `read` gives something truthy (every 100 ms, up to `timeoutMs`). */
async function until<T>(read: () => T | undefined | false, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for a chat answer');
    await sleep(100);
  }
}
