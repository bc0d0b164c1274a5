import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type PublishingWorld, SLOW } from '../publishing/support.js';
import { commandFields, eventually, startSlackWorld, type SlackWorld } from './slack-support.js';

let w: PublishingWorld;
let s: SlackWorld;
beforeAll(async () => {
  w = await startWorld();
  s = await startSlackWorld(w, { oauth: true });
}, 120_000);
afterAll(async () => {
  await s?.close();
  await w?.close();
});

/** One hop of a browser: the request, with the cookies it holds, not following redirects. */
async function visit(url: string, cookie = ''): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

describe('Slack OAuth install', () => {
  it(
    'installs into two teams through /slack/install, keeps each installation sealed, answers them and forgets one on app_uninstalled',
    SLOW,
    async () => {
      const status = commandFields(s, 'status', { userId: 'U0ANA', userName: 'ana', channelId: 'C0GENERAL' });
      await s.sender.command(status.fields);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(s.slack.state.responses.get(status.responseId)).toEqual([]);

      const install = await visit(`${s.server.url}/slack/install`);
      expect(install.status).toBe(302);
      const authorize = new URL(install.headers.get('location')!);
      expect(`${authorize.origin}${authorize.pathname}`).toBe(s.slack.authorizeUrl);
      expect(authorize.searchParams.get('scope')).toBe('commands,chat:write,chat:write.public');
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${s.server.url}/slack/oauth_redirect`);
      const cookie = install.headers
        .getSetCookie()
        .map((each) => each.split(';')[0])
        .join('; ');

      const approved = await visit(authorize.toString());
      const callback = approved.headers.get('location')!;
      const forged = await visit(callback.replace(/state=[^&]+/, 'state=forged'), cookie);
      expect(forged.status).toBeGreaterThanOrEqual(400);
      expect(await w.t.deps.db.chatInstallations.countDocuments({})).toBe(0);

      const done = await visit(callback, cookie);
      expect(done.status).toBe(200);
      const stored = await w.t.deps.db.chatInstallations.findOne({ _id: s.team.id });
      expect(stored).not.toBeNull();
      expect(JSON.stringify(stored)).not.toContain(s.team.botToken);
      expect(w.t.deps.secrets.open(stored!.sealed)).toContain(s.team.botToken);

      const again = commandFields(s, 'status', { userId: 'U0ANA', userName: 'ana', channelId: 'C0GENERAL' });
      expect((await s.sender.command(again.fields)).status).toBe(200);
      const answer = await eventually(() => s.slack.state.responses.get(again.responseId)?.[0]);
      expect(String(answer.text)).toContain('Not linked to Postdeck');

      const other = s.slack.state.addTeam('T0OTHER', 'other');
      const second = await visit(`${s.server.url}/slack/install`);
      const secondCookie = second.headers
        .getSetCookie()
        .map((each) => each.split(';')[0])
        .join('; ');
      const secondAuthorize = new URL(second.headers.get('location')!);
      secondAuthorize.searchParams.set('team', other.id);
      const secondCallback = (await visit(secondAuthorize.toString())).headers.get('location')!;
      expect((await visit(secondCallback, secondCookie)).status).toBe(200);
      expect((await w.t.deps.db.chatInstallations.find({}).toArray()).map((doc) => doc._id).sort()).toEqual([
        s.team.id,
        other.id,
      ]);

      const uninstalled = await s.sender.event({
        token: 'deprecated',
        team_id: s.team.id,
        api_app_id: 'A0POSTDECK',
        event: { type: 'app_uninstalled', event_ts: '1790000000.000100' },
        type: 'event_callback',
        event_id: 'Ev0UNINSTALL',
        event_time: 1790000000,
        authorizations: [{ team_id: s.team.id, user_id: 'U0BOT', is_bot: true, enterprise_id: null }],
      });
      expect(uninstalled.status).toBe(200);
      await eventually(async () => (await w.t.deps.db.chatInstallations.countDocuments({})) === 1);
      expect(await w.t.deps.db.chatInstallations.findOne({ _id: other.id })).not.toBeNull();
    },
  );
});
