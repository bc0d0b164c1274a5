import { beforeAll, describe, expect, it } from 'vitest';
import { pollChatLogin, startChatLogin } from '../../src/core/chat/login.js';
import { acceptInvitation, createInvitation } from '../../src/core/identity/invitations.js';
import type { DeviceAuthorization } from '../../src/core/device/start.js';
import { WRONG_CODES_PER_USER } from '../../src/core/device/guess-guard.js';
import { useTestServer } from '../support/http.js';
import { buildUser, postJson, readResponse, testClock, type TestUser } from '../support/identity.js';
import { WebClient } from '../support/web.js';

const clock = testClock();
const { t, server } = await useTestServer({ clock });
let user: TestUser;
let team: TestUser;
let browser: WebClient;

beforeAll(async () => {
  user = await buildUser(t.deps, { name: 'Dana' });
  team = await buildUser(t.deps, { name: 'Team' });
  const { token } = await createInvitation(t.deps, team.scope, { role: 'member' });
  await acceptInvitation(t.deps, { token, userId: user.user.id });
  browser = new WebClient(server);
  await browser.signIn(user.email, user.password);
});

async function start(clientName?: string): Promise<DeviceAuthorization> {
  const body = clientName === undefined ? {} : { client_name: clientName };
  return (await (await postJson(server, '/auth/device/start', body)).json()) as DeviceAuthorization;
}

async function poll(deviceCode: string): Promise<{ status: number; body: Record<string, unknown> | null }> {
  clock.advance(6_000);
  return readResponse(await postJson(server, '/auth/device/token', { device_code: deviceCode }));
}

/** A login as `/postdeck login` starts it in a chat: the bot is the device. */
function chatLogin(platform: 'slack' | 'discord') {
  return startChatLogin(t.deps, {
    platform,
    teamId: 'T-acme',
    teamName: 'Acme',
    chatUserId: 'U-dana',
    chatUserName: 'Dana',
    replyTarget: 'C-general',
    publicUrl: 'http://localhost',
  });
}

function pathOf(uri: string): string {
  const url = new URL(uri);
  return `${url.pathname}${url.search}`;
}

describe('the verification page', () => {
  it('asks for the code when none is given', async () => {
    const page = await browser.get('/device');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="f-code">Code shown on your device</label>');
    expect(page.text).toContain('<form method="get" action="/device">');
  });

  it('shows the code, the client and a workspace picker, then approves for the chosen workspace', async () => {
    const started = await start('postdeck CLI on build-box');
    const page = await browser.get(pathOf(started.verification_uri_complete));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<p class="codebox" aria-label="Device code">${started.user_code}</p>`);
    expect(page.text).toContain('<strong>postdeck CLI on build-box</strong>');
    expect(page.text).toContain('<legend>Workspace the key will be scoped to</legend>');
    expect(page.text).toContain(`value="${user.workspaceId}"`);
    expect(page.text).toContain(`value="${team.workspaceId}"`);
    expect(page.text).toMatch(
      /<button type="submit" class="primary" name="decision" value="approve">Approve<\/button>/,
    );
    expect(page.text).toMatch(/<button type="submit" class="danger" name="decision" value="deny">Deny<\/button>/);

    expect((await poll(started.device_code)).body).toMatchObject({ error: 'authorization_pending' });
    const done = await browser.post('/device', {
      code: started.user_code,
      workspaceId: team.workspaceId,
      decision: 'approve',
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Device approved');
    expect(done.text).toContain('You can return to your terminal or app.');
    expect(done.text).toContain('an API key for Team&#39;s workspace');

    const redeemed = await poll(started.device_code);
    expect(redeemed.status).toBe(200);
    const key = redeemed.body?.api_key as string;
    const keys = await browser.get(`/keys?ws=${team.workspaceId}`);
    expect(keys.text).toContain('postdeck CLI on build-box');
    expect(keys.text).not.toContain(key);

    // The link opened again once the key was handed over: nothing is waiting for the person any more.
    clock.advance(3 * 60_000);
    const again = await browser.get(pathOf(started.verification_uri_complete));
    expect(again.text).toContain('Code already used');
    expect(again.text).toContain('The device got its API key 3 minutes ago.');
    expect(again.text).not.toContain('return to your terminal');
  });

  it('denies: the device is told access_denied', async () => {
    const started = await start();
    const page = await browser.get(pathOf(started.verification_uri_complete));
    expect(page.text).toContain('The device did not say what it is');
    const done = await browser.post('/device', { code: started.user_code, decision: 'deny' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Request denied');
    expect((await poll(started.device_code)).body).toMatchObject({ error: 'access_denied' });
    // Opening the link again shows the outcome rather than the buttons.
    const again = await browser.get(pathOf(started.verification_uri_complete));
    expect(again.text).toContain('Request denied');
    expect(again.text).not.toContain('value="approve"');
  });

  it('refuses to approve for a workspace the user is not in, and the code stays pending', async () => {
    const started = await start();
    const stranger = await buildUser(t.deps);
    await browser.get(pathOf(started.verification_uri_complete));
    const page = await browser.post('/device', {
      code: started.user_code,
      workspaceId: stranger.workspaceId,
      decision: 'approve',
    });
    expect(page.status).toBe(404);
    expect((await poll(started.device_code)).body).toMatchObject({ error: 'authorization_pending' });
  });

  it('says a wrong code is wrong, and tells a guesser how long to wait', async () => {
    const wrong = await browser.get('/device?code=DECK-BBBB-BBBB');
    expect(wrong.status).toBe(404);
    expect(wrong.text).toMatch(/role="alert" aria-live="assertive">That code is not valid or has expired/);
    expect(wrong.text).toContain('value="DECK-BBBB-BBBB"');

    let page = wrong;
    for (let i = 1; i <= WRONG_CODES_PER_USER; i++)
      page = await browser.get(`/device?code=DECK-CCCC-CCC${'BCDFGHJKLMNP'[i]}`);
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(page.text).toMatch(/Too many wrong codes\. Try again in \d+ (minutes?|seconds?)\./);
    clock.advance(16 * 60_000);
  });

  it('sends the person back to Slack after approving a Slack login, and says so when the link is opened again', async () => {
    const started = await chatLogin('slack');
    const page = await browser.get(pathOf(started.verificationUriComplete));
    expect(page.text).toContain('<h1>Link Slack to Postdeck</h1>');
    expect(page.text).toContain('Slack workspace Acme (T-acme), requested by Dana');
    const done = await browser.post('/device', {
      code: started.userCode,
      workspaceId: team.workspaceId,
      decision: 'approve',
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('<h1>Slack linked</h1>');
    expect(done.text).toContain('You can go back to Slack.');
    expect(done.text).toContain('The bot confirms the link there within a few seconds.');
    expect(done.text).not.toContain('terminal');

    // The bot's poll takes the key, as its due task would; the link opened later says what happened.
    clock.advance(6_000);
    const login = await t.deps.db.chatLogins.findOne({ platform: 'slack', teamId: 'T-acme' });
    expect(await pollChatLogin(t.deps, login!._id)).toMatchObject({ outcome: 'linked' });
    clock.advance(10 * 60_000);
    const again = await browser.get(pathOf(started.verificationUriComplete));
    expect(again.text).toContain('Code already used');
    expect(again.text).toContain('Slack was linked to Postdeck 10 minutes ago.');
    expect(again.text).toMatch(/<code>\/postdeck status<\/code> ?in Slack shows the link\./);
    expect(again.text).not.toContain('terminal');
  });

  it('sends the person back to Discord after denying a Discord login', async () => {
    const started = await chatLogin('discord');
    const page = await browser.get(pathOf(started.verificationUriComplete));
    expect(page.text).toContain('<h1>Link Discord to Postdeck</h1>');
    const done = await browser.post('/device', { code: started.userCode, decision: 'deny' });
    expect(done.text).toContain('Discord will not be linked to Postdeck.');
    expect(done.text).toContain('You can go back to Discord.');
    expect(done.text).not.toContain('terminal');
    const again = await browser.get(pathOf(started.verificationUriComplete));
    expect(again.text).toContain('You can go back to Discord.');
  });

  it('sends a signed-out person to sign in and back to the same code', async () => {
    const started = await start();
    const fresh = new WebClient(server);
    const path = pathOf(started.verification_uri_complete);
    const redirect = await fresh.get(path);
    expect(redirect.location).toBe(`/signin?next=${encodeURIComponent(path)}`);
    const signin = await fresh.get(redirect.location!);
    expect(signin.text).toContain('Sign in to approve the device');
    const back = await fresh.post('/signin', { email: user.email, password: user.password, next: path });
    expect(back.location).toBe(path);
    expect((await fresh.get(path)).text).toContain(started.user_code);
  });
});
