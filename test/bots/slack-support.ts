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

export async function startSlackWorld(w: PublishingWorld): Promise<SlackWorld> {
  const slack = await startSlackEmulator();
  const team = slack.state.addTeam('T0ACME', 'acme');
  const config: SlackConfig = {
    mode: 'single',
    signingSecret: SIGNING_SECRET,
    apiUrl: slack.apiUrl,
    botToken: team.botToken,
  };
  const bot = createSlackBot(
    w.t.deps,
    config,
    { publicUrl: 'http://localhost', devicePrefix: undefined },
    w.t.deps.logger,
  );
  Object.assign(w.t.deps.chat, { slack: bot.gateway });
  const server = await startTestServer(w.t, { app: { chatEndpoints: bot.endpoints } });
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
