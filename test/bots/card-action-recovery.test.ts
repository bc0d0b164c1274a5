import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardAction, CardActor } from '../../src/core/chat/actions.js';
import { CARD_ACTION_EXPIRY_MS, recoverCardActions } from '../../src/core/chat/action-recovery.js';
import { CARD_ACTION_CLAIM_MS, recordCardAction, type CardWhere } from '../../src/core/chat/recorded-actions.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { createRestDraft } from '../support/chat-cards.js';
import { makeJpeg } from '../support/media.js';
import {
  connectCreator,
  emulatorPosts,
  startWorld,
  storeMedia,
  type PublishingWorld,
  SLOW,
} from '../publishing/support.js';
import {
  cardEmbed,
  draftWithCard as discordDraftWithCard,
  linkGuild,
  member,
  startDiscordWorld,
  type DiscordWorld,
} from './discord-support.js';
import {
  clickCard,
  eventually,
  linkTeam,
  runCommand,
  startSlackWorld,
  type SlackPerson,
  type SlackWorld,
} from './slack-support.js';

// A click acknowledged by an API process that was then killed leaves its record pending: the worker's
// recovery job carries it out. Such a record is made here as the dying process made it, `ageMs` ago.

let w: PublishingWorld;
let s: SlackWorld;
let d: DiscordWorld;
let platform: PlatformDoc;
let openId: string;
const ANA: SlackPerson = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
const EVE: SlackPerson = { userId: 'U0EVE', userName: 'eve', channelId: 'C0APPROVALS' };
const DISCORD_ANA = '210000000000000001';

beforeAll(async () => {
  w = await startWorld();
  s = await startSlackWorld(w);
  d = await startDiscordWorld(w);
  await linkTeam(w, s, ANA);
  await runCommand(s, 'approvals here', ANA);
  await linkGuild(w, d, member(d, DISCORD_ANA, 'ana'));
  await d.sender.command(member(d, DISCORD_ANA, 'ana'), ['approvals', 'here']);
  await eventually(
    async () => (await w.t.deps.db.chatLinks.findOne({ _id: `discord:${d.guildId}` }))?.approvalsChannelId,
  );
  ({ platform, openId } = await connectCreator(w));
}, 180_000);
afterAll(async () => {
  await d?.close();
  await s?.close();
  await w?.close();
});

async function slackDraftWithCard(content: string) {
  const media = [await storeMedia(w, await makeJpeg(1080, 1920)), await storeMedia(w, await makeJpeg(1080, 1920))];
  const postId = await createRestDraft(
    w,
    platform._id,
    content,
    media.map((m) => m._id),
  );
  const card = await eventually(() =>
    s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === null && m.text.includes(content)),
  );
  return { postId, card };
}

/** Records a click as the adapter does before acknowledging it, as if made `ageMs` ago by a process now gone. */
async function recordedBeforeDeath(id: string, who: CardActor, action: CardAction, where: CardWhere, ageMs: number) {
  const then = () => new Date(Date.now() - ageMs);
  expect(await recordCardAction({ ...w.t.deps, now: then }, id, who, action, where)).toBe(true);
}

const slackActor = (person: SlackPerson, postId: string): CardActor => ({
  platform: 'slack',
  teamId: s.team.id,
  chatUserId: person.userId,
  chatUserName: person.userName,
  postId,
});
const stateOf = async (postId: string) => (await w.t.deps.db.posts.findOne({ _id: postId }))?.state;
const actionState = async (id: string) => (await w.t.deps.db.chatCardActions.findOne({ _id: id }))?.state;
const LAPSED = CARD_ACTION_CLAIM_MS + 5_000;

describe('card actions whose process died', () => {
  it('are carried out by the worker: the draft publishes once and the Slack card is redrawn', SLOW, async () => {
    const { postId, card } = await slackDraftWithCard('Approved just before a SIGKILL');
    const id = `slack:${s.team.id}:trigger-died`;
    const where = { place: { teamId: s.team.id, channelId: ANA.channelId }, messageId: card.ts };
    await recordedBeforeDeath(id, slackActor(ANA, postId), { type: 'approve' }, where, LAPSED);
    expect(card.edits).toHaveLength(0);

    await recoverCardActions(w.t.deps);
    await eventually(async () => (await actionState(id)) === 'done');
    expect((await w.t.deps.db.chatCardActions.findOne({ _id: id }))?.recovered).toBe(true);
    await eventually(async () => (await stateOf(postId)) === 'PUBLISHED', 60_000);
    await eventually(() => JSON.stringify(card.blocks).includes('<@U0ANA> approved: publishing now'));
    expect(card.edits.length).toBeGreaterThan(0);

    await recoverCardActions(w.t.deps); // nothing is left to recover
    await new Promise((resolve) => setTimeout(resolve, 500));
    const published = (await emulatorPosts(w, openId)).posts.filter(
      (p) => (p.request.post_info as Record<string, unknown>).description === 'Approved just before a SIGKILL',
    );
    expect(published).toHaveLength(1);
    expect(JSON.stringify(card.blocks).match(/approved: publishing now/g)).toHaveLength(1);
  });

  it('leaves a click alone while its process may still be on it', SLOW, async () => {
    const { postId, card } = await slackDraftWithCard('Still claimed by its process');
    const id = `slack:${s.team.id}:trigger-claimed`;
    const where = { place: { teamId: s.team.id, channelId: ANA.channelId }, messageId: card.ts };
    await recordedBeforeDeath(id, slackActor(ANA, postId), { type: 'reject' }, where, 1_000);
    expect(await recoverCardActions(w.t.deps)).toBe(0);
    expect(await actionState(id)).toBe('pending');
    expect(await stateOf(postId)).toBe('DRAFT');
    await w.t.deps.db.chatCardActions.deleteOne({ _id: id });
  });

  it('says a recovered refusal under the card, since the private route died with the process', SLOW, async () => {
    const { postId, card } = await slackDraftWithCard('Eve tried to approve');
    const id = `slack:${s.team.id}:trigger-eve`;
    const where = { place: { teamId: s.team.id, channelId: ANA.channelId }, messageId: card.ts };
    await recordedBeforeDeath(id, slackActor(EVE, postId), { type: 'approve' }, where, LAPSED);
    await recoverCardActions(w.t.deps);
    const reply = await eventually(() => s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === card.ts));
    expect(reply.text).toMatch(/^eve: .*not one of/);
    expect(await actionState(id)).toBe('done');
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(card.edits).toHaveLength(0);
  });

  it('expires a click pending too long: a reply asks to click again and nothing is done', SLOW, async () => {
    const { postId, card } = await slackDraftWithCard('Approved long before the restart');
    const id = `slack:${s.team.id}:trigger-old`;
    const where = { place: { teamId: s.team.id, channelId: ANA.channelId }, messageId: card.ts };
    await recordedBeforeDeath(id, slackActor(ANA, postId), { type: 'approve' }, where, CARD_ACTION_EXPIRY_MS + 60_000);
    await recoverCardActions(w.t.deps);
    const reply = await eventually(() => s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === card.ts));
    expect(reply.text).toBe(
      "Postdeck restarted before acting on ana's approval: nothing was done. Please click again.",
    );
    expect(await actionState(id)).toBe('expired');
    await recoverCardActions(w.t.deps);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(card.edits).toHaveLength(0);
    expect(s.slack.state.channel(ANA.channelId).filter((m) => m.threadTs === card.ts)).toHaveLength(1);
  });

  it('are carried out for Discord too: the card in the channel is redrawn', SLOW, async () => {
    const { postId, card } = await discordDraftWithCard(w, d, 'Rejected just before a SIGKILL');
    const id = 'discord:1300000000000000001';
    const who: CardActor = {
      platform: 'discord',
      teamId: d.guildId,
      chatUserId: DISCORD_ANA,
      chatUserName: 'ana',
      postId,
    };
    const where = { place: { teamId: d.guildId, channelId: d.channelId }, messageId: card.id };
    await recordedBeforeDeath(id, who, { type: 'reject' }, where, LAPSED);
    await recoverCardActions(w.t.deps);
    await eventually(async () => !(await w.t.deps.db.posts.findOne({ _id: postId })));
    await eventually(() => cardEmbed(card).title.startsWith('Rejected'));
    expect(await actionState(id)).toBe('done');
  });
});

describe('recording a click', () => {
  it('records it once under a redelivery, and marks it done once carried out', SLOW, async () => {
    const { postId, card } = await slackDraftWithCard('Rejected twice over');
    const first = await clickCard(s, card, ANA, 'postdeck_reject', postId, 'trigger-twice');
    const again = await clickCard(s, card, ANA, 'postdeck_reject', postId, 'trigger-twice');
    expect([first.status, again.status]).toEqual([200, 200]);
    await eventually(() => card.text.startsWith('Rejected'));
    const id = `slack:${s.team.id}:trigger-twice`;
    await eventually(async () => (await actionState(id)) === 'done');
    expect(await w.t.deps.db.chatCardActions.countDocuments({ 'actor.postId': postId })).toBe(1);
    expect((await w.t.deps.db.chatCardActions.findOne({ _id: id }))?.recovered).toBe(false);
    expect(JSON.stringify(card.blocks).match(/rejected it/g)).toHaveLength(1);
  });
});
