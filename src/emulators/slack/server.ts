import Router from '@koa/router';
import Koa from 'koa';
import { listenEmulator, readRequestText } from '../shared/listen.js';
import { registerChannelView, type ChannelActions } from '../shared/channel-page.js';
import { registerApi } from './api.js';
import { slackChannelActions, type SlackAppConnection } from './channel-view.js';
import { SlackEmulatorState } from './state.js';
import { renderChannel } from './viewer.js';

export { SlackEmulatorState } from './state.js';
export type { EmulatedMessage, EmulatedTeam } from './state.js';
export type { SlackAppConnection } from './channel-view.js';
export { SlackSender } from './sender.js';

export interface SlackEmulatorOptions {
  port?: number;
  host?: string;
  app?: { clientId: string; clientSecret: string; appId: string };
}

export interface RunningSlackEmulator {
  url: string;
  /** What the app's Web API URL is set to: `${url}/api/`. */
  apiUrl: string;
  /** The OAuth authorize page, for the install flow. */
  authorizeUrl: string;
  state: SlackEmulatorState;
  /** A response_url for one command or interaction, as Slack puts in its payloads. */
  newResponseUrl(): { url: string; id: string };
  /**
   * Makes the channel views interactive for one person: what they type and click there is sent,
   * signed, to the app at `eventsUrl`. Until then the views only show what the app posted.
   */
  connect(app: SlackAppConnection): void;
  /** The channel view of `channel`: `${url}/__control/channels/<channel>`. */
  channelUrl(channel: string): string;
  stop(): Promise<void>;
}

/**
 * Starts the local Slack emulator: the Web API methods an app calls (auth.test, chat.postMessage,
 * chat.update, chat.postEphemeral, views.open, oauth.v2.access), response URLs and the OAuth
 * authorize page, keeping what the app sent for tests to read. Requests into the app are sent,
 * signed as Slack signs them, by `SlackSender`.
 */
export async function startSlackEmulator(options: SlackEmulatorOptions = {}): Promise<RunningSlackEmulator> {
  const state = new SlackEmulatorState(
    options.app ?? { clientId: '1111.2222', clientSecret: 'emulated-client-secret', appId: 'A0POSTDECK' },
  );
  const router = new Router();
  registerApi(router, state);
  let actions: ChannelActions | null = null;
  let person: string | null = null;
  // Not Slack's: a page drawing a channel, for people reviewing what the app posted (and trying it once connected).
  registerChannelView(
    router,
    (channel) => renderChannel(state, channel, person),
    () => actions,
    (ctx) => (ctx.state as { args?: Record<string, unknown> }).args ?? {},
  );
  const app = new Koa();
  app.use(async (ctx, next) => {
    if (ctx.method === 'POST') {
      const text = await readRequestText(ctx.req);
      const type = ctx.get('content-type');
      let args: Record<string, unknown> = {};
      if (type.startsWith('application/json')) args = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      else args = Object.fromEntries(new URLSearchParams(text));
      (ctx.state as { args: unknown }).args = args;
    }
    await next();
  });
  app.use(router.routes());
  const server = await listenEmulator(app, options);
  const { url } = server;
  return {
    url,
    apiUrl: `${url}/api/`,
    authorizeUrl: `${url}/oauth/v2/authorize`,
    state,
    newResponseUrl() {
      const id = state.newResponseId();
      return { url: `${url}/respond/${id}`, id };
    },
    connect(app) {
      state.people.set(app.person.id, app.person.name);
      person = app.person.id;
      actions = slackChannelActions(state, url, app);
    },
    channelUrl: (channel) => `${url}/__control/channels/${encodeURIComponent(channel)}`,
    stop: server.stop,
  };
}
