import { randomBytes } from 'node:crypto';
import { registerDiscordCommands } from '../bots/discord/register.js';
import { loadConfig } from '../config.js';
import { startDiscordEmulator } from '../emulators/discord/server.js';
import { startSlackEmulator } from '../emulators/slack/server.js';
import { checkNotRunning } from './serve-lock.js';
import { serveCommand } from './serve.js';

/** The emulated places, fixed so a link made in one trial still names them in the next. */
export const TRIAL = {
  slack: { teamId: 'T0TRYBOTS', teamName: 'postdeck-trial', channelId: 'C0APPROVALS', you: 'U0TRIALYOU' },
  discord: { guildId: '1300000000000000100', channelId: '1300000000000000101', you: '1300000000000000042' },
  channelName: 'approvals',
  yourName: 'you',
} as const;

/**
 * Discord gives an app 3 s to answer; the trial gives a minute, so a slow first request on a small
 * machine is not shown as a lost answer. The 3 s are held in the bots' own tests.
 */
const TRIAL_ANSWER_DEADLINE_MS = 60_000;

/**
 * `postdeck try-bots`: Postdeck as `postdeck serve` runs it, with a Slack and a Discord emulator
 * beside it and the bots wired to them through the settings production uses (SLACK_API_URL,
 * SLACK_SIGNING_SECRET, SLACK_BOT_TOKEN, DISCORD_API_URL and the application's id, key and token),
 * set for this process only. Prints a channel page of each, where a person types `/postdeck`
 * commands and clicks the cards' buttons; the emulators sign what they send as Slack and Discord do.
 */
export async function tryBotsCommand(): Promise<void> {
  const config = loadConfig(process.env);
  if (config.chat.slack || config.chat.discord) {
    throw new Error(
      'try-bots wires the bots to local emulators, but this install has its own Slack or Discord settings ' +
        '(SLACK_* or DISCORD_*, from the environment or .env): unset them to try the bots here, or use the real ones',
    );
  }
  // Before any emulator starts: a Postdeck already serving this PORT and DATA_DIR must be stopped first.
  await checkNotRunning(config);

  const slack = await startSlackEmulator();
  const team = slack.state.addTeam(TRIAL.slack.teamId, TRIAL.slack.teamName);
  slack.state.channelNames.set(TRIAL.slack.channelId, TRIAL.channelName);
  const discord = await startDiscordEmulator({ answerDeadlineMs: TRIAL_ANSWER_DEADLINE_MS });
  discord.state.addGuild('Postdeck trial', TRIAL.discord.guildId);
  discord.state.addChannel(TRIAL.discord.guildId, TRIAL.discord.channelId);
  discord.state.channelNames.set(TRIAL.discord.channelId, TRIAL.channelName);
  const stopEmulators = () => Promise.all([slack.stop(), discord.stop()]);

  const signingSecret = randomBytes(24).toString('hex');
  Object.assign(process.env, {
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_BOT_TOKEN: team.botToken,
    SLACK_API_URL: slack.apiUrl,
    DISCORD_APPLICATION_ID: discord.state.application.id,
    DISCORD_PUBLIC_KEY: discord.publicKey,
    DISCORD_BOT_TOKEN: discord.state.application.botToken,
    DISCORD_API_URL: discord.apiUrl,
  });
  let listeningOn: string | undefined;
  try {
    // As `postdeck discord register-commands --guild <id>` does with a real application.
    await registerDiscordCommands(loadConfig(process.env).chat.discord!, TRIAL.discord.guildId);
    ({ listeningOn } = await serveCommand('all'));
  } catch (error) {
    await stopEmulators();
    throw error;
  }
  const server = listeningOn!.replace('//localhost:', '//127.0.0.1:');
  slack.connect({
    eventsUrl: `${server}/slack/events`,
    signingSecret,
    team,
    person: { id: TRIAL.slack.you, name: TRIAL.yourName },
  });
  discord.connect(`${server}/discord/interactions`, {
    id: TRIAL.discord.you,
    name: TRIAL.yourName,
    guildId: TRIAL.discord.guildId,
  });
  process.stderr.write(
    `Slack and Discord emulators are running beside it: the bots talk only to them, nothing reaches Slack or Discord.\n` +
      `  Slack #${TRIAL.channelName}:    ${slack.channelUrl(TRIAL.slack.channelId)}\n` +
      `  Discord #${TRIAL.channelName}:  ${discord.channelUrl(TRIAL.discord.channelId)}\n` +
      `Open one and type /postdeck login, then /postdeck approvals here; drafts then arrive there as approval cards.\n\n`,
  );
}
