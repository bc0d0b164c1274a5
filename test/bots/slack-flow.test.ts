import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/core/auth/api-keys.js';
import { denyDeviceCode } from '../../src/core/device/approve.js';
import { createRestDraft } from '../support/chat-cards.js';
import { makeJpeg } from '../support/media.js';
import {
  connectCreator,
  PUBLIC_SETTINGS,
  startWorld,
  storeMedia,
  type PublishingWorld,
  SLOW,
} from '../publishing/support.js';
import { clickCard, eventually, linkTeam, startSlackWorld, commandFields, type SlackWorld } from './slack-support.js';

let w: PublishingWorld;
let s: SlackWorld;
beforeAll(async () => {
  w = await startWorld();
  s = await startSlackWorld(w);
});
afterAll(async () => {
  await s?.close();
  await w?.close();
});

const ANA = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };

describe('the Slack bot', () => {
  it('links through /postdeck login, posts a card for a REST draft and publishes it on Approve', SLOW, async () => {
    const [shown, linked] = await linkTeam(w, s, ANA);
    expect(shown).toMatch(/Only you can see this/);
    expect(linked).toContain('Linked to the Postdeck workspace');
    const link = await w.t.deps.db.chatLinks.findOne({ _id: `slack:${s.team.id}` });
    const key = w.t.deps.secrets.open(link!.sealedApiKey);
    expect(link!.sealedApiKey).not.toContain(key);
    const platforms = await fetch(`${w.server.url}/public/v1/platforms`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(platforms.status).toBe(200);

    const here = commandFields(s, 'approvals here', ANA);
    await s.sender.command(here.fields);
    await eventually(() => s.slack.state.responses.get(here.responseId)?.[0]);

    const { platform } = await connectCreator(w);
    const media = [await storeMedia(w, await makeJpeg(1080, 1920)), await storeMedia(w, await makeJpeg(1080, 1920))];
    const postId = await createRestDraft(
      w,
      platform._id,
      'Two slides for the card',
      media.map((m) => m._id),
      { ...PUBLIC_SETTINGS, auto_add_music: true },
    );
    const card = await eventually(() =>
      s.slack.state.channel(ANA.channelId).find((m) => m.text.includes('Two slides')),
    );
    const images = card.blocks.filter((b) => (b as { type: string }).type === 'image');
    expect(images).toHaveLength(2);
    const click = await clickCard(s, card, ANA, 'postdeck_approve', postId);
    expect(click.status).toBe(200);
    await eventually(async () => (await w.t.deps.db.posts.findOne({ _id: postId }))?.state === 'PUBLISHED', 60_000);
    const reply = await eventually(() => s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === card.ts));
    expect(reply.text).toContain('Published on TikTok');
    await eventually(() => card.text.startsWith('Published on TikTok'));
  });
});

describe('Slack logins', () => {
  it('tells the person when a login is denied, and keeps the link it had', SLOW, async () => {
    const before = await w.t.deps.db.chatLinks.findOne({ _id: `slack:${s.team.id}` });
    const { fields, responseId } = commandFields(s, 'login', ANA);
    await s.sender.command(fields);
    const shown = await eventually(() => s.slack.state.responses.get(responseId)?.[0]);
    const userCode = /\*([A-Z]+-[A-Z]{4}-[A-Z]{4})\*/.exec(String(shown.text))![1]!;
    await denyDeviceCode(w.t.deps, { userId: w.tenant.userId, address: '127.0.0.1' }, { userCode });
    const told = await eventually(() => s.slack.state.responses.get(responseId)?.[1], 30_000);
    expect(told).toMatchObject({ response_type: 'ephemeral', replace_original: true });
    expect(String(told.text)).toContain('denied');
    const after = await w.t.deps.db.chatLinks.findOne({ _id: `slack:${s.team.id}` });
    expect(after?.apiKeyId).toBe(before?.apiKeyId);
    expect(await w.t.deps.db.apiKeys.findOne({ _id: before!.apiKeyId, revokedAt: null })).not.toBeNull();
  });
});

describe('Slack requests', () => {
  it('refuses forged and stale signatures with 401, and does a retried delivery once', SLOW, async () => {
    const status = commandFields(s, 'status', ANA);
    const forged = await s.sender.command(status.fields, { secret: 'not-the-signing-secret' });
    expect(forged.status).toBe(401);
    const stale = await s.sender.command(status.fields, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(stale.status).toBe(401);
    expect(s.slack.state.responses.get(status.responseId)).toEqual([]);

    const once = commandFields(s, 'status', ANA);
    expect((await s.sender.command(once.fields)).status).toBe(200);
    expect((await s.sender.command(once.fields, { retry: { num: 1, reason: 'http_timeout' } })).status).toBe(200);
    await eventually(() => s.slack.state.responses.get(once.responseId)?.[0]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.slack.state.responses.get(once.responseId)).toHaveLength(1);
  });
});

describe('/postdeck status', () => {
  it('says the link key works, and once it is revoked in Postdeck that it no longer does', SLOW, async () => {
    const status = async () => {
      const { fields, responseId } = commandFields(s, 'status', ANA);
      await s.sender.command(fields);
      return String((await eventually(() => s.slack.state.responses.get(responseId)?.[0])).text);
    };
    expect(await status()).toContain('Its key works: Postdeck accepted it just now.');

    const link = await w.t.deps.db.chatLinks.findOne({ _id: `slack:${s.team.id}` });
    const { workspaceId, accountId, userId } = w.tenant;
    await revokeApiKey(w.t.deps, { workspaceId, accountId, actor: { type: 'user', userId } }, link!.apiKeyId);
    const revoked = await status();
    expect(revoked).toContain('Its key no longer works');
    expect(revoked).toContain('Run `/postdeck login` to link again.');
    expect(revoked).not.toContain('Its key works');
  });
});
