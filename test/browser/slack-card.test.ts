import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCreator, startWorld, type PublishingWorld, SLOW } from '../publishing/support.js';
import { imagesLoaded, openBrowser, SCREENSHOTS, threeSlideDraft } from '../support/chat-cards.js';
import {
  clickCard,
  eventually,
  linkTeam,
  runCommand,
  startSlackWorld,
  type SlackWorld,
} from '../bots/slack-support.js';

// The Slack approval card as a person sees it, drawn by the Slack emulator in Chromium.
const ANA = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
let w: PublishingWorld;
let s: SlackWorld;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  w = await startWorld();
  s = await startSlackWorld(w);
  await linkTeam(w, s, ANA);
  await runCommand(s, 'approvals here', ANA);
  ({ browser, page } = await openBrowser());
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await w?.close();
});

describe('the Slack approval card, looked at', () => {
  it(
    'shows the slides in order, the caption and details, then the result and the link after Approve',
    SLOW,
    async () => {
      const { platform } = await connectCreator(w, { displayName: 'Cold Brew Club' });
      const content = 'Three ways to make cold brew at home ☕ #coldbrew #coffee';
      const postId = await threeSlideDraft(w, platform, content);
      const card = await eventually(() => s.slack.state.channel(ANA.channelId).find((m) => m.text.includes(content)));
      const viewer = `${s.slack.url}/__control/channels/${ANA.channelId}`;

      await page.goto(viewer);
      expect(await eventually(() => imagesLoaded(page).then((n) => n > 0 && n))).toBe(3);
      expect(await Promise.all((await page.locator('img').all()).map((image) => image.getAttribute('alt')))).toEqual([
        'Slide 1 of 3',
        'Slide 2 of 3',
        'Slide 3 of 3',
      ]);
      const awaiting = await page.textContent('article');
      expect(awaiting).toContain('Draft waiting for approval');
      expect(awaiting).toContain(content);
      expect(awaiting).toContain('Cold Brew Club');
      expect(awaiting).toContain('Everyone');
      expect(awaiting).toContain('auto_add_music');
      expect(await page.locator('button').allTextContents()).toEqual(['Approve', 'Schedule', 'Edit caption', 'Reject']);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'slack-card-awaiting.png'), fullPage: true });

      await clickCard(s, card, ANA, 'postdeck_approve', postId);
      await eventually(() => s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === card.ts), 60_000);
      await eventually(() => card.text.startsWith('Published on TikTok'));
      await page.goto(viewer);
      await eventually(() => imagesLoaded(page).then((n) => n > 0));
      const published = await page.textContent('article');
      expect(published).toContain('Published on TikTok');
      expect(published).toContain('@U0ANA approved: publishing now');
      expect(published).toContain('View on TikTok');
      expect(await page.$$('button')).toHaveLength(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'slack-card-published.png'), fullPage: true });
    },
  );
});
