import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { connectCreator, startWorld, storeMedia, type PublishingWorld, SLOW } from '../publishing/support.js';
import { createRestDraft, openBrowser, SCREENSHOTS } from '../support/chat-cards.js';
import { makeJpeg } from '../support/media.js';
import {
  cardEmbed,
  commandReply,
  linkGuild,
  member,
  startDiscordWorld,
  type DiscordWorld,
} from '../bots/discord-support.js';
import {
  clickCard,
  eventually,
  linkTeam,
  runCommand,
  startSlackWorld,
  submitModal,
  type SlackPerson,
  type SlackWorld,
} from '../bots/slack-support.js';

// One Postdeck workspace linked to a Slack team and a Discord server, both with an approvals
// channel: each draft gets a card in each. Acting on it in one chat must redraw the other chat's
// card (its state, and no buttons left to click), as the channel pages show it to a person.
let w: PublishingWorld;
let s: SlackWorld;
let d: DiscordWorld;
let platform: PlatformDoc;
let browser: Browser;
let page: Page;
const ANA: SlackPerson = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
const DAN_ID = '210000000000000007';

beforeAll(async () => {
  w = await startWorld();
  s = await startSlackWorld(w);
  d = await startDiscordWorld(w);
  // The two chats link apart from each other (each login waits out its device-code poll interval),
  // so they link at the same time, while the creator connects and the browser starts.
  const linkSlack = async () => {
    await linkTeam(w, s, ANA);
    await runCommand(s, 'approvals here', ANA);
  };
  const linkDiscord = async () => {
    const dan = member(d, DAN_ID, 'dan');
    await linkGuild(w, d, dan);
    await commandReply(d, await d.sender.command(dan, ['approvals', 'here']), 'Draft approvals now go to');
  };
  const [, , creator, opened] = await Promise.all([linkSlack(), linkDiscord(), connectCreator(w), openBrowser()]);
  platform = creator.platform;
  ({ browser, page } = opened);
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await d?.close();
  await s?.close();
  await w?.close();
});

/** A draft made through REST, and its card in each chat. */
async function draftWithCards(caption: string) {
  const media = [await storeMedia(w, await makeJpeg(1080, 1920))];
  const postId = await createRestDraft(
    w,
    platform._id,
    caption,
    media.map((m) => m._id),
  );
  const slackCard = await eventually(
    () => s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === null && m.text.includes(caption)),
    60_000,
  );
  const discordCard = await eventually(
    () =>
      d.discord.state
        .channel(d.channelId)
        .find((m) => (m.embeds[0] as { description?: string } | undefined)?.description === caption),
    60_000,
  );
  return { postId, slackCard, discordCard };
}

/** The channel page as a person sees it, kept as a screenshot; answers the last card's text and its buttons. */
async function look(url: string, name: string): Promise<{ text: string; buttons: string[] }> {
  await page.goto(url);
  const card = page.locator('article').last();
  await card.waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, `cards-across-chats-${name}.png`), fullPage: true });
  return { text: (await card.textContent()) ?? '', buttons: await card.locator('button').allTextContents() };
}

describe('a draft acted on in one chat', () => {
  it('scheduled in Slack: the Discord card shows it scheduled and offers no buttons', SLOW, async () => {
    const { postId, slackCard, discordCard } = await draftWithCards('Scheduled from Slack, seen in Discord');
    const discordPage = `${d.discord.url}/__control/channels/${d.channelId}`;
    expect((await look(discordPage, 'discord-before')).buttons).toEqual([
      'Approve',
      'Schedule',
      'Edit caption',
      'Reject',
    ]);

    const click = await clickCard(s, slackCard, ANA, 'postdeck_schedule', postId);
    const at = Math.floor(Date.now() / 1000) + 3 * 3600;
    await submitModal(s, ANA, click.triggerId, { when: { at: { type: 'datetimepicker', selected_date_time: at } } });
    await eventually(() => slackCard.text.startsWith('Scheduled'), 60_000);
    await eventually(() => cardEmbed(discordCard).title?.startsWith('Scheduled'), 60_000);
    expect(discordCard.components).toEqual([]);

    const seen = await look(discordPage, 'discord-after-slack-schedule');
    expect(seen.text).toContain('Scheduled');
    expect(seen.buttons).toEqual([]);
  });

  it('rejected in Discord: the Slack card shows it rejected and offers no buttons', SLOW, async () => {
    const { postId, slackCard, discordCard } = await draftWithCards('Rejected in Discord, seen in Slack');
    await d.sender.click(member(d, DAN_ID, 'dan'), discordCard, `postdeck:reject:${postId}`);
    await eventually(() => cardEmbed(discordCard).title?.startsWith('Rejected'), 60_000);
    await eventually(() => slackCard.text.startsWith('Rejected'), 60_000);
    expect(JSON.stringify(slackCard.blocks)).not.toContain('postdeck_approve');

    const seen = await look(`${s.slack.url}/__control/channels/${ANA.channelId}`, 'slack-after-discord-reject');
    expect(seen.text).toContain('Rejected');
    expect(seen.buttons).toEqual([]);
  });
});
