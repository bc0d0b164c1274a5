import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  App,
  HTTPReceiver,
  LogLevel,
  webApi,
  type AuthorizeResult,
  type Installation,
  type InstallationQuery,
  type Logger as BoltLogger,
} from '@slack/bolt';
import type { CoreDeps } from '../../core/context.js';
import type { ChatEndpoint, ChatGateway } from '../../core/chat/gateway.js';
import { chatInstallations } from '../../core/chat/installations.js';
import type { SlackConfig } from '../../settings/chat.js';
import type { Logger } from '../../logger.js';
import { acknowledgeEverything, readBodyFirst } from './acknowledge.js';
import { registerCommands, type SlackBotSettings } from './commands.js';
import { slackGateway } from './gateway.js';
import { registerInteractions } from './interactions.js';

// chat:write.public: cards reach a public approvals channel without inviting the bot first.
export const SLACK_SCOPES = ['commands', 'chat:write', 'chat:write.public'];

/**
 * The Slack bot: a Bolt app whose receiver is mounted on Postdeck's own server (Events API and
 * interactivity at /slack/events, signature and timestamp checked by Bolt), plus the gateway core
 * uses to post cards. One workspace with SLACK_BOT_TOKEN, or any number installed through OAuth
 * (/slack/install), their installations sealed in the database.
 */
export function createSlackBot(
  deps: CoreDeps,
  config: SlackConfig,
  settings: SlackBotSettings,
  logger: Logger,
): { endpoints: ChatEndpoint[]; gateway: ChatGateway } {
  const boltLogger = toBoltLogger(logger);
  const clientOptions = { slackApiUrl: config.apiUrl, retryConfig: { retries: 2 } };
  const receiver = new HTTPReceiver({
    signingSecret: config.signingSecret,
    endpoints: '/slack/events',
    logger: boltLogger,
    ...(config.mode === 'oauth'
      ? {
          clientId: config.clientId,
          clientSecret: config.clientSecret,
          stateSecret: config.stateSecret,
          scopes: SLACK_SCOPES,
          installationStore: installationStore(deps),
          installerOptions: {
            directInstall: true,
            authorizationUrl: config.authorizeUrl,
            clientOptions,
            redirectUriPath: '/slack/oauth_redirect',
          },
          redirectUri: `${settings.publicUrl}/slack/oauth_redirect`,
        }
      : {}),
  });
  const app = new App({
    receiver,
    logger: boltLogger,
    clientOptions,
    ...(config.mode === 'single' ? { authorize: onceForToken(config.botToken, clientOptions) } : {}),
  });
  const slackLogger = logger.child({ component: 'slack' });
  acknowledgeEverything(receiver, app, slackLogger);
  registerCommands(app, deps, settings);
  registerInteractions(app, deps);
  app.event('app_uninstalled', async ({ context }) => {
    if (context.teamId) await chatInstallations.remove(deps, context.teamId);
  });
  app.error((error) => {
    logger.error({ err: error }, 'the Slack bot failed to handle a request');
    return Promise.resolve();
  });

  const handle = (req: IncomingMessage, res: ServerResponse) => receiver.requestListener(req, res);
  const events = readBodyFirst(receiver, config.signingSecret, slackLogger);
  const endpoints: ChatEndpoint[] = [{ method: 'POST', path: '/slack/events', handle: events }];
  if (config.mode === 'oauth') {
    endpoints.push(
      { method: 'GET', path: '/slack/install', handle },
      { method: 'GET', path: '/slack/oauth_redirect', handle },
    );
  }
  return { endpoints, gateway: slackGateway(deps, config) };
}

function installationStore(deps: CoreDeps) {
  const idOf = (query: {
    teamId?: string | undefined;
    enterpriseId?: string | undefined;
    isEnterpriseInstall?: boolean;
  }) => (query.isEnterpriseInstall && query.enterpriseId ? query.enterpriseId : (query.teamId ?? ''));
  return {
    async storeInstallation(installation: Installation) {
      const id = idOf({
        teamId: installation.team?.id,
        enterpriseId: installation.enterprise?.id,
        isEnterpriseInstall: installation.isEnterpriseInstall ?? false,
      });
      await chatInstallations.save(deps, id, installation);
    },
    async fetchInstallation(query: InstallationQuery<boolean>) {
      const installation = (await chatInstallations.find(deps, idOf(query))) as Installation | undefined;
      if (!installation) throw new Error(`no Slack installation for ${idOf(query)}`);
      return installation;
    },
    async deleteInstallation(query: InstallationQuery<boolean>) {
      await chatInstallations.remove(deps, idOf(query));
    },
  };
}

/**
 * Who the bot is (its user and bot ids, which Bolt needs to ignore its own messages), asked of Slack
 * once for the token and kept; a failed answer is asked again on the next request. Bolt's own
 * single-token authorize either asks on every request (token verification off) or once when the
 * app is built, keeping a failure (Slack unreachable at start) for good.
 */
function onceForToken(
  token: string,
  clientOptions: ConstructorParameters<typeof webApi.WebClient>[1],
): () => Promise<AuthorizeResult> {
  const client = new webApi.WebClient(token, clientOptions);
  let identity: Promise<{ botUserId?: string; botId?: string }> | undefined;
  return async () => {
    identity ??= client.auth.test().then((result) => ({ botUserId: result.user_id, botId: result.bot_id }));
    try {
      return { botToken: token, ...(await identity) };
    } catch (error) {
      identity = undefined;
      throw error;
    }
  };
}

/** Bolt's logger interface over pino; Bolt's debug chatter stays at debug. */
function toBoltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'slack' });
  return {
    debug: (...args: unknown[]) => child.debug(args.map(String).join(' ')),
    info: (...args: unknown[]) => child.info(args.map(String).join(' ')),
    warn: (...args: unknown[]) => child.warn(args.map(String).join(' ')),
    error: (...args: unknown[]) => child.error(args.map(String).join(' ')),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}
