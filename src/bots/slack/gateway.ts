import { webApi } from '@slack/bolt';
import type { CoreDeps } from '../../core/context.js';
import { chatInstallations } from '../../core/chat/installations.js';
import type { ChatGateway } from '../../core/chat/gateway.js';
import type { SlackConfig } from '../../settings/chat.js';
import { cardBlocks } from './blocks.js';

type WebClient = InstanceType<typeof webApi.WebClient>;

/** Slack as core's chat gateway: cards through chat.postMessage / chat.update, login news through response_url. */
export function slackGateway(deps: CoreDeps, config: SlackConfig): ChatGateway {
  const clients = new Map<string, WebClient>();
  const clientFor = async (teamId: string): Promise<WebClient> => {
    const token = config.mode === 'single' ? config.botToken : await installedToken(deps, teamId);
    const cached = clients.get(token);
    if (cached) return cached;
    const client = new webApi.WebClient(token, { slackApiUrl: config.apiUrl, retryConfig: { retries: 2 } });
    clients.set(token, client);
    return client;
  };
  return {
    platform: 'slack',
    async postCard(place, card) {
      const client = await clientFor(place.teamId);
      const result = await client.chat.postMessage({ channel: place.channelId, ...cardBlocks(card) });
      if (!result.ts) throw new Error('Slack answered chat.postMessage without a ts');
      return result.ts;
    },
    async updateCard(place, messageId, card) {
      const client = await clientFor(place.teamId);
      await client.chat.update({ channel: place.channelId, ts: messageId, ...cardBlocks(card) });
    },
    async replyToCard(place, messageId, text) {
      const client = await clientFor(place.teamId);
      await client.chat.postMessage({ channel: place.channelId, thread_ts: messageId, text });
    },
    async postNotice(place, text) {
      const client = await clientFor(place.teamId);
      await client.chat.postMessage({ channel: place.channelId, text });
    },
    async replyToLogin(_teamId, responseUrl, text) {
      await respond(responseUrl, { response_type: 'ephemeral', replace_original: true, text });
    },
  };
}

/** Posts to a response_url (a command's or an interaction's), failing loudly on anything but 2xx. */
export async function respond(responseUrl: string, message: Record<string, unknown>): Promise<void> {
  const response = await fetch(responseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`Slack's response_url answered ${response.status}`);
}

async function installedToken(deps: CoreDeps, teamId: string): Promise<string> {
  const installation = (await chatInstallations.find(deps, teamId)) as { bot?: { token?: string } } | undefined;
  const token = installation?.bot?.token;
  if (!token) throw new Error(`Postdeck is not installed in the Slack workspace ${teamId}`);
  return token;
}
