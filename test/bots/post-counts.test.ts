import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatApprovalsConsumer } from '../../src/core/chat/consumer.js';
import { deliverEvent } from '../../src/core/events/deliver.js';
import { recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import { createRestDraft } from '../support/chat-cards.js';
import { makeJpeg } from '../support/media.js';
import { counts } from '../insights/support.js';
import {
  connectCreator,
  PUBLIC_SETTINGS,
  startWorld,
  storeMedia,
  SLOW,
  type PublishingWorld,
} from '../publishing/support.js';
import {
  draftWithCard,
  linkGuild,
  member,
  commandReply,
  startDiscordWorld,
  type DiscordWorld,
} from './discord-support.js';
import { clickCard, commandFields, eventually, linkTeam, startSlackWorld, type SlackWorld } from './slack-support.js';

// A published card's thread gets the post's counts at 24 hours and at 7 days, one message each, once:
// the real Bolt app and discord.js against the Slack and Discord emulators, the counts recorded by the
// core function the collector calls, the events relayed and delivered by the running worker.
let w: PublishingWorld;
let s: SlackWorld;
let d: DiscordWorld;
beforeAll(async () => {
  w = await startWorld();
  s = await startSlackWorld(w);
  d = await startDiscordWorld(w);
}, 120_000);
afterAll(async () => {
  await d?.close();
  await s?.close();
  await w?.close();
});

const HOUR = 3_600_000;
const ANA = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
const ANA_ID = '210000000000000001';

/** Records counts `hours` after the post was published, as the collector does. */
async function snapshotAt(
  postId: string,
  hours: number,
  views: number,
  likes: number,
  comments: number,
  shares: number,
) {
  const record = await eventually(() => w.t.deps.db.postInsights.findOne({ _id: postId }));
  const takenAt = new Date(record.publishedAt.getTime() + hours * HOUR);
  return recordPostSnapshot(w.t.deps, postId, counts(views, likes, comments, shares), takenAt);
}

/** Delivers the event again as a retried delivery would after losing its receipt (a worker killed before writing it). */
async function deliverAgain(eventId: string): Promise<void> {
  await eventually(() => w.t.deps.db.eventReceipts.findOne({ _id: `chat-approvals:${eventId}` }));
  await w.t.deps.db.eventReceipts.deleteOne({ _id: `chat-approvals:${eventId}` });
  await deliverEvent(w.t.deps, [chatApprovalsConsumer], eventId);
  const outbox = await w.t.deps.db.outbox.findOne({ _id: eventId });
  await chatApprovalsConsumer.handle(w.t.deps, { id: eventId, ...outbox!, actor: outbox!.actor });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

describe("the post's counts under its card", () => {
  it('in Slack: one thread message at 24 hours and one at 7 days, once each', SLOW, async () => {
    await linkTeam(w, s, ANA);
    const here = commandFields(s, 'approvals here', ANA);
    await s.sender.command(here.fields);
    await eventually(() => s.slack.state.responses.get(here.responseId)?.[0]);
    const { platform } = await connectCreator(w);
    const media = [await storeMedia(w, await makeJpeg(1080, 1920)), await storeMedia(w, await makeJpeg(1080, 1920))];
    const postId = await createRestDraft(
      w,
      platform._id,
      'Counts in the thread',
      media.map((m) => m._id),
      {
        ...PUBLIC_SETTINGS,
      },
    );
    const card = await eventually(() =>
      s.slack.state.channel(ANA.channelId).find((m) => m.text.includes('Counts in the thread')),
    );
    await clickCard(s, card, ANA, 'postdeck_approve', postId);
    await eventually(async () => (await w.t.deps.db.posts.findOne({ _id: postId }))?.state === 'PUBLISHED', 60_000);
    const thread = () => s.slack.state.channel(ANA.channelId).filter((m) => m.threadTs === card.ts);
    const countMessages = () => thread().filter((m) => m.text.startsWith('After '));
    await eventually(() => thread().find((m) => m.text.startsWith('Published on TikTok')), 60_000);

    await snapshotAt(postId, 0.05, 40, 2, 0, 0);
    await snapshotAt(postId, 23, 1_900, 150, 9, 3);
    await settle();
    expect(countMessages()).toEqual([]);
    await snapshotAt(postId, 24, 2_400, 210, 12, 7);
    const first = await eventually(() => countMessages()[0], 60_000);
    expect(first.text).toBe('After 24 hours on TikTok: 2,400 views, 210 likes, 12 comments, 7 shares.');

    await deliverAgain(`${postId}:post.metrics_24h`);
    await snapshotAt(postId, 25, 2_500, 220, 12, 7);
    await snapshotAt(postId, 7 * 24, 18_250, 1_300, 80, 95);
    await eventually(() => countMessages()[1], 60_000);
    await deliverAgain(`${postId}:post.metrics_7d`);
    await settle();
    expect(countMessages().map((m) => m.text)).toEqual([
      'After 24 hours on TikTok: 2,400 views, 210 likes, 12 comments, 7 shares.',
      'After 7 days on TikTok: 18,250 views, 1,300 likes, 80 comments, 95 shares.',
    ]);
  });

  it(
    'in Discord: one reply at 24 hours and one at 7 days, once each, saying when a late count was taken',
    SLOW,
    async () => {
      const ana = member(d, ANA_ID, 'ana');
      await linkGuild(w, d, ana);
      await commandReply(d, await d.sender.command(ana, ['approvals', 'here']), 'Draft approvals now go to');
      const { postId, card } = await draftWithCard(w, d, 'Counts under the Discord card');
      await d.sender.click(ana, card, `postdeck:approve:${postId}`);
      await eventually(async () => (await w.t.deps.db.posts.findOne({ _id: postId }))?.state === 'PUBLISHED', 60_000);
      const replies = () => d.discord.state.channel(d.channelId).filter((m) => m.replyTo === card.id);
      const countReplies = () => replies().filter((m) => m.content.startsWith('After '));
      await eventually(() => replies().find((m) => m.content.startsWith('Published on TikTok')), 60_000);

      // The collector was late: its first snapshot past a day was taken at 27 hours.
      await snapshotAt(postId, 0.05, 10, 1, 0, 0);
      await snapshotAt(postId, 27, 3_100, 260, 14, 9);
      const first = await eventually(() => countReplies()[0], 60_000);
      expect(first.content).toBe(
        'After 24 hours on TikTok (counted at 27 hours): 3,100 views, 260 likes, 14 comments, 9 shares.',
      );
      await deliverAgain(`${postId}:post.metrics_24h`);
      await snapshotAt(postId, 7 * 24, 9_000, 700, 40, 33);
      await eventually(() => countReplies()[1], 60_000);
      await deliverAgain(`${postId}:post.metrics_7d`);
      await settle();
      expect(countReplies().map((m) => m.content)).toEqual([
        'After 24 hours on TikTok (counted at 27 hours): 3,100 views, 260 likes, 14 comments, 9 shares.',
        'After 7 days on TikTok: 9,000 views, 700 likes, 40 comments, 33 shares.',
      ]);
    },
  );
});
