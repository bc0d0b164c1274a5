import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackBot } from '../../src/bots/slack/bot.js';
import { startSlackEmulator, SlackSender, type RunningSlackEmulator } from '../../src/emulators/slack/server.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { parseExposition, sampleValue, withMetrics } from '../support/metrics.js';

// Chat interactions by platform and outcome: the real Bolt receiver, requests signed as Slack signs them.
const SECRET = 'slack-metrics-signing-secret';
let database: TestDatabase;
let slack: RunningSlackEmulator;
let server: TestServer;
beforeAll(async () => {
  database = await openTestDatabase();
  const { t, registry } = withMetrics(database);
  slack = await startSlackEmulator();
  const team = slack.state.addTeam('T0METRICS', 'metrics');
  const bot = createSlackBot(
    t.deps,
    { mode: 'single', signingSecret: SECRET, apiUrl: slack.apiUrl, botToken: team.botToken },
    { publicUrl: 'http://localhost', devicePrefix: undefined },
    t.deps.logger,
  );
  server = await startTestServer(t, {
    app: { chatEndpoints: bot.endpoints, metrics: { registry, token: undefined } },
  });
});
afterAll(async () => {
  await server.stop();
  await slack.stop();
  await database.close();
});

describe('chat interactions', { timeout: 60_000 }, () => {
  it('count as ok when answered, rejected when the signature is forged', async () => {
    const sender = new SlackSender(`${server.url}/slack/events`, SECRET);
    const verification = { type: 'url_verification', token: 'legacy', challenge: 'metrics-challenge' };
    expect((await sender.event(verification)).status).toBe(200);
    expect((await sender.event(verification, { secret: 'not-the-secret' })).status).toBe(401);

    const families = await parseExposition(await (await server.request('/metrics')).text());
    const slackEvents = { platform: 'slack' };
    expect(sampleValue(families, 'postdeck_chat_interactions_total', { ...slackEvents, outcome: 'ok' })).toBe(1);
    expect(sampleValue(families, 'postdeck_chat_interactions_total', { ...slackEvents, outcome: 'rejected' })).toBe(1);
    const http = 'postdeck_http_request_duration_seconds';
    expect(sampleValue(families, http, { route: '/slack/events', status: '200' })).toBe(1);
    expect(sampleValue(families, http, { route: '/slack/events', status: '401' })).toBe(1);
  });
});
