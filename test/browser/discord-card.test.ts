import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCreator, startWorld, type PublishingWorld, SLOW } from '../publishing/support.js';
import { imagesLoaded, openBrowser, SCREENSHOTS, threeSlideDraft } from '../support/chat-cards.js';
import {
  commandReply,
  eventually,
  linkGuild,
  member,
  startDiscordWorld,
  type DiscordWorld,
} from '../bots/discord-support.js';

// The Discord approval card as a person sees it, drawn by the Discord emulator in Chromium.
let w: PublishingWorld;
let d: DiscordWorld;
let browser: Browser;
let page: Page;
const ANA_ID = '210000000000000001';

beforeAll(async () => {
  w = await startWorld();
  d = await startDiscordWorld(w);
  const ana = member(d, ANA_ID, 'ana');
  await linkGuild(w, d, ana);
  await commandReply(d, await d.sender.command(ana, ['approvals', 'here']), 'Draft approvals now go to');
  ({ browser, page } = await openBrowser());
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await d?.close();
  await w?.close();
});

describe('the Discord approval card, looked at', () => {
  it(
    'shows the slides as one gallery with the caption and details, then the result and the link after Approve',
    SLOW,
    async () => {
      const { platform } = await connectCreator(w, { displayName: 'Cold Brew Club' });
      const content = 'Three ways to make cold brew at home ☕ #coldbrew #coffee';
      const postId = await threeSlideDraft(w, platform, content);
      const card = await eventually(() =>
        d.discord.state
          .channel(d.channelId)
          .find((m) => (m.embeds[0] as { description?: string } | undefined)?.description?.includes('cold brew')),
      );
      const viewer = `${d.discord.url}/__control/channels/${d.channelId}`;

      await page.goto(viewer);
      expect(await eventually(() => imagesLoaded(page).then((n) => n > 0 && n))).toBe(3);
      expect(await page.locator('.embed').count()).toBe(1);
      const awaiting = await page.textContent('article');
      expect(awaiting).toContain('Draft waiting for approval');
      expect(awaiting).toContain('Cold Brew Club');
      expect(awaiting).toContain('Everyone');
      expect(awaiting).toContain('auto_add_music');
      expect(await page.locator('button').allTextContents()).toEqual(['Approve', 'Schedule', 'Edit caption', 'Reject']);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'discord-card-awaiting.png'), fullPage: true });

      await d.sender.click(member(d, ANA_ID, 'ana'), card, `postdeck:approve:${postId}`);
      await eventually(() => d.discord.state.channel(d.channelId).find((m) => m.replyTo === card.id), 60_000);
      await eventually(async () => (await w.t.deps.db.posts.findOne({ _id: postId }))?.state === 'PUBLISHED');
      await eventually(() => (card.embeds[0] as { title?: string }).title?.startsWith('Published'));
      await page.goto(viewer);
      await eventually(() => imagesLoaded(page).then((n) => n > 0));
      const published = await page.textContent('article');
      expect(published).toContain('Published on TikTok');
      expect(published).toContain(`@${ANA_ID} approved: publishing now`);
      expect(published).toContain('View on TikTok');
      expect(await page.$$('button')).toHaveLength(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'discord-card-published.png'), fullPage: true });
    },
  );
});
