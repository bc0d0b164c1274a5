import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SLACK_SCOPES } from '../../src/bots/slack/bot.js';

interface Manifest {
  features: { slash_commands: { command: string; url: string; should_escape: boolean }[] };
  oauth_config: { redirect_urls: string[]; scopes: { bot: string[] } };
  settings: { event_subscriptions: { request_url: string }; interactivity: { request_url: string } };
}

describe('the Slack app manifest in docs/chat', () => {
  it('asks for the scopes the bot installs with and points every request at the endpoints it serves', () => {
    const manifest = JSON.parse(readFileSync('docs/chat/slack-app-manifest.json', 'utf8')) as Manifest;
    expect(manifest.oauth_config.scopes.bot).toEqual(SLACK_SCOPES);
    const [command] = manifest.features.slash_commands;
    expect(command).toMatchObject({ command: '/postdeck', should_escape: true });
    const paths = [
      command!.url,
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
    ];
    expect(paths.map((url) => new URL(url).pathname)).toEqual(['/slack/events', '/slack/events', '/slack/events']);
    expect(manifest.oauth_config.redirect_urls.map((url) => new URL(url).pathname)).toEqual(['/slack/oauth_redirect']);
  });
});
