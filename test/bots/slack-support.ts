import { expect } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSlackBot } from '../../src/bots/slack/bot.js';
import type { SlackConfig } from '../../src/settings/chat.js';
import { approveDeviceCode } from '../../src/core/device/approve.js';
import {
  startSlackEmulator,
  SlackSender,
  type RunningSlackEmulator,
  type EmulatedTeam,
} from '../../src/emulators/slack/server.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { freePort } from '../support/spawn.js';
import type { PublishingWorld } from '../publishing/support.js';

export const SIGNING_SECRET = 'slack-test-signing-secret';

/** The Slack bot on a test server over the world's database, talking to a Slack emulator. */
export interface SlackWorld {
  slack: RunningSlackEmulator;
  team: EmulatedTeam;
  server: TestServer;
  sender: SlackSender;
  close(): Promise<void>;
}

/** `oauth`: the bot in OAuth-install mode (no bot token; each team installs it through /slack/install). */
export async function startSlackWorld(w: PublishingWorld, options: { oauth?: boolean } = {}): Promise<SlackWorld> {
  const slack = await startSlackEmulator();
  const team = slack.state.addTeam('T0ACME', 'acme');
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const config: SlackConfig = options.oauth
    ? {
        mode: 'oauth',
        signingSecret: SIGNING_SECRET,
        apiUrl: slack.apiUrl,
        clientId: slack.state.app.clientId,
        clientSecret: slack.state.app.clientSecret,
        stateSecret: 'slack-test-state-secret-0123456789',
        authorizeUrl: slack.authorizeUrl,
      }
    : { mode: 'single', signingSecret: SIGNING_SECRET, apiUrl: slack.apiUrl, botToken: team.botToken };
  const bot = createSlackBot(w.t.deps, config, { publicUrl, devicePrefix: undefined }, w.t.deps.logger);
  Object.assign(w.t.deps.chat, { slack: bot.gateway });
  const server = await startTestServer(w.t, { port, app: { chatEndpoints: bot.endpoints } });
  return {
    slack,
    team,
    server,
    sender: new SlackSender(`${server.url}/slack/events`, SIGNING_SECRET),
    async close() {
      await server.stop();
      await slack.stop();
    },
  };
}

/** Fields of a `/postdeck` slash command as Slack sends them. */
export function commandFields(
  s: SlackWorld,
  text: string,
  who: { userId: string; userName: string; channelId: string },
): { fields: Record<string, string>; responseId: string } {
  const response = s.slack.newResponseUrl();
  return {
    responseId: response.id,
    fields: {
      token: 'deprecated-verification-token',
      team_id: s.team.id,
      team_domain: s.team.name,
      channel_id: who.channelId,
      channel_name: 'approvals',
      user_id: who.userId,
      user_name: who.userName,
      command: '/postdeck',
      text,
      api_app_id: 'A0POSTDECK',
      response_url: response.url,
      trigger_id: `${Date.now()}.${Math.random().toString(36).slice(2)}`,
    },
  };
}

/** Waits until `read` gives something truthy. */
export async function eventually<T>(read: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(50);
  }
}

/** Links the team through `/postdeck login`, approving the code as the tenant's owner. */
export async function linkTeam(
  w: PublishingWorld,
  s: SlackWorld,
  who: { userId: string; userName: string; channelId: string },
): Promise<string[]> {
  const { fields, responseId } = commandFields(s, 'login', who);
  expect((await s.sender.command(fields)).status).toBe(200);
  const first = await eventually(() => s.slack.state.responses.get(responseId)?.[0]);
  const code = /\*([A-Z]+-[A-Z]{4}-[A-Z]{4})\*/.exec(String(first.text))?.[1];
  if (!code) throw new Error(`no code in ${String(first.text)}`);
  const owner = {
    workspaceId: w.tenant.workspaceId,
    accountId: w.tenant.accountId,
    actor: { type: 'user' as const, userId: w.tenant.userId },
  };
  await approveDeviceCode(w.t.deps, owner, { userCode: code, address: '127.0.0.1' });
  const linked = await eventually(() => s.slack.state.responses.get(responseId)?.[1], 30_000);
  return [String(first.text), String(linked.text)];
}

/** A person in the Slack team, as the sender names them. */
export interface SlackPerson {
  userId: string;
  userName: string;
  channelId: string;
}

/** Clicks a card's button as Slack sends it (block_actions); answers the HTTP status and the click's response_url id. */
export async function clickCard(
  s: Pick<SlackWorld, 'slack' | 'sender' | 'team'>,
  card: { ts: string; text: string; channel: string },
  who: SlackPerson,
  actionId: string,
  postId: string,
  triggerId = `trigger-${Math.random().toString(36).slice(2)}`,
): Promise<{ status: number; responseId: string; triggerId: string }> {
  const response = s.slack.newResponseUrl();
  const sent = await s.sender.interaction({
    type: 'block_actions',
    team: { id: s.team.id, domain: s.team.name },
    user: { id: who.userId, username: who.userName, name: who.userName, team_id: s.team.id },
    api_app_id: 'A0POSTDECK',
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: card.ts, channel_id: card.channel, is_ephemeral: false },
    trigger_id: triggerId,
    channel: { id: card.channel, name: 'approvals' },
    message: { ts: card.ts, text: card.text, type: 'message' },
    response_url: response.url,
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: `postdeck_card_${postId}`,
        value: postId,
        action_ts: String(Date.now() / 1000),
      },
    ],
  });
  return { status: sent.status, responseId: response.id, triggerId };
}

/** Submits the modal the app opened for `triggerId`, with the given input values (view_submission). */
export async function submitModal(
  s: SlackWorld,
  who: SlackPerson,
  triggerId: string,
  values: Record<string, Record<string, Record<string, unknown>>>,
): Promise<Response> {
  const opened = await eventually(() => s.slack.state.views.find((view) => view.triggerId === triggerId));
  return s.sender.interaction({
    type: 'view_submission',
    team: { id: s.team.id, domain: s.team.name },
    user: { id: who.userId, username: who.userName, name: who.userName, team_id: s.team.id },
    api_app_id: 'A0POSTDECK',
    token: 'deprecated-verification-token',
    trigger_id: `${triggerId}-submit`,
    view: {
      id: 'V0MODAL',
      team_id: s.team.id,
      type: 'modal',
      callback_id: opened.view.callback_id,
      private_metadata: opened.view.private_metadata,
      state: { values },
      hash: '1700000000.abcdef',
      app_id: 'A0POSTDECK',
      bot_id: 'B0POSTDECK',
    },
    response_urls: [],
  });
}

/** Runs a `/postdeck` command and waits for its (first) answer. */
export async function runCommand(s: SlackWorld, text: string, who: SlackPerson): Promise<string> {
  const { fields, responseId } = commandFields(s, text, who);
  expect((await s.sender.command(fields)).status).toBe(200);
  const answer = await eventually(() => s.slack.state.responses.get(responseId)?.[0]);
  return String(answer.text);
}
