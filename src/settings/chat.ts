import { z } from 'zod';

/** The chat bots' environment variables (part of the one schema in config.ts). */
export const ChatEnvSchema = z.object({
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  SLACK_BOT_TOKEN: z.string().startsWith('xoxb-', 'must be a bot token (xoxb-...)').optional(),
  SLACK_CLIENT_ID: z.string().min(1).optional(),
  SLACK_CLIENT_SECRET: z.string().min(1).optional(),
  SLACK_STATE_SECRET: z.string().min(16).optional(),
  SLACK_API_URL: z.url().default('https://slack.com/api/'),
  SLACK_AUTHORIZE_URL: z.url().default('https://slack.com/oauth/v2/authorize'),
  DISCORD_APPLICATION_ID: z
    .string()
    .regex(/^\d{5,25}$/, 'must be the numeric application id')
    .optional(),
  DISCORD_PUBLIC_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/i, 'must be the 64-hex-digit public key')
    .optional(),
  DISCORD_BOT_TOKEN: z.string().min(1).optional(),
  DISCORD_API_URL: z.url().default('https://discord.com/api'),
});

type ChatVars = z.infer<typeof ChatEnvSchema>;

/** Slack: one workspace with a bot token, or many installed through OAuth (an installation per team). */
export type SlackConfig = {
  readonly signingSecret: string;
  readonly apiUrl: string;
} & (
  | { readonly mode: 'single'; readonly botToken: string }
  | {
      readonly mode: 'oauth';
      readonly clientId: string;
      readonly clientSecret: string;
      readonly stateSecret: string;
      readonly authorizeUrl: string;
    }
);

export interface DiscordConfig {
  readonly applicationId: string;
  readonly publicKey: string;
  readonly botToken: string;
  readonly apiUrl: string;
}

export interface ChatConfig {
  /** Absent: the Slack bot is off (no SLACK_SIGNING_SECRET). */
  readonly slack: SlackConfig | undefined;
  /** Absent: the Discord bot is off (no DISCORD_APPLICATION_ID). */
  readonly discord: DiscordConfig | undefined;
}

export function chatConfig(vars: ChatVars): ChatConfig {
  const apiUrl = vars.SLACK_API_URL.endsWith('/') ? vars.SLACK_API_URL : `${vars.SLACK_API_URL}/`;
  let slack: SlackConfig | undefined;
  if (vars.SLACK_SIGNING_SECRET && vars.SLACK_BOT_TOKEN) {
    slack = { mode: 'single', signingSecret: vars.SLACK_SIGNING_SECRET, apiUrl, botToken: vars.SLACK_BOT_TOKEN };
  } else if (vars.SLACK_SIGNING_SECRET && vars.SLACK_CLIENT_ID && vars.SLACK_CLIENT_SECRET && vars.SLACK_STATE_SECRET) {
    slack = {
      mode: 'oauth',
      signingSecret: vars.SLACK_SIGNING_SECRET,
      apiUrl,
      clientId: vars.SLACK_CLIENT_ID,
      clientSecret: vars.SLACK_CLIENT_SECRET,
      stateSecret: vars.SLACK_STATE_SECRET,
      authorizeUrl: vars.SLACK_AUTHORIZE_URL,
    };
  }
  const discord =
    vars.DISCORD_APPLICATION_ID && vars.DISCORD_PUBLIC_KEY && vars.DISCORD_BOT_TOKEN
      ? {
          applicationId: vars.DISCORD_APPLICATION_ID,
          publicKey: vars.DISCORD_PUBLIC_KEY.toLowerCase(),
          botToken: vars.DISCORD_BOT_TOKEN,
          apiUrl: vars.DISCORD_API_URL.replace(/\/+$/, ''),
        }
      : undefined;
  return { slack, discord };
}

/** Chat settings that only work together. */
export function chatProblems(vars: ChatVars): string[] {
  const problems: string[] = [];
  const oauth = [vars.SLACK_CLIENT_ID, vars.SLACK_CLIENT_SECRET, vars.SLACK_STATE_SECRET];
  const someSlack = Boolean(vars.SLACK_BOT_TOKEN) || oauth.some(Boolean);
  if (vars.SLACK_SIGNING_SECRET && !vars.SLACK_BOT_TOKEN && !oauth.every(Boolean)) {
    problems.push(
      'SLACK_SIGNING_SECRET: also set SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (OAuth install)',
    );
  }
  if (someSlack && !vars.SLACK_SIGNING_SECRET) problems.push('SLACK_SIGNING_SECRET: required to turn the Slack bot on');
  if (vars.SLACK_BOT_TOKEN && oauth.some(Boolean)) {
    problems.push('SLACK_BOT_TOKEN and SLACK_CLIENT_ID: choose one workspace (a token) or OAuth install, not both');
  }
  const discord = [vars.DISCORD_APPLICATION_ID, vars.DISCORD_PUBLIC_KEY, vars.DISCORD_BOT_TOKEN];
  if (discord.some(Boolean) && !discord.every(Boolean)) {
    problems.push('DISCORD_APPLICATION_ID, DISCORD_PUBLIC_KEY and DISCORD_BOT_TOKEN: set all three or none');
  }
  return problems;
}
