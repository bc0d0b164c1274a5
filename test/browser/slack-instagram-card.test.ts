import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, storeMedia, type PublishingWorld, SLOW } from '../publishing/support.js';
import { createRestDraft, imagesLoaded, openBrowser, SCREENSHOTS } from '../support/chat-cards.js';
import { connectedInstagram, startInstagramFixture, type InstagramFixture } from '../support/instagram.js';
import {
  clickCard,
  eventually,
  linkTeam,
  runCommand,
  startSlackWorld,
  type SlackWorld,
} from '../bots/slack-support.js';

// An Instagram draft's approval card as a person sees it in the Slack emulator: the network and handle,
// no TikTok-only lines (privacy, music), and Instagram's link once published.
const ANA = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
let ig: InstagramFixture;
let w: PublishingWorld;
let s: SlackWorld;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ig = await startInstagramFixture();
  w = await startWorld({ instagram: ig.config });
  s = await startSlackWorld(w);
  await linkTeam(w, s, ANA);
  await runCommand(s, 'approvals here', ANA);
  ({ browser, page } = await openBrowser());
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await w?.close();
  await ig?.close();
});

/** A 4:5 JPEG slide (Instagram's carousel frame) with its number written large. */
function slide(n: number, colour: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1080" height="1350"><rect width="100%" height="100%" fill="${colour}"/><text x="540" y="780" font-size="360" text-anchor="middle" fill="white" font-family="sans-serif">${n}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

describe('an Instagram approval card in Slack, looked at', () => {
  it(
    'names Instagram and the handle, leaves out TikTok-only lines, and links to Instagram after Approve',
    SLOW,
    async () => {
      const { platform, account } = await connectedInstagram(w.t, ig, w.tenant, {
        username: 'coldbrew.club',
        name: 'Cold Brew Club',
      });
      const media = [];
      for (const [i, colour] of ['#c13584', '#f56040', '#405de6'].entries()) {
        media.push(await storeMedia(w, await slide(i + 1, colour)));
      }
      const content = 'Three ways to make cold brew at home ☕ #coldbrew';
      const mediaIds = media.map((m) => m._id);
      const postId = await createRestDraft(w, platform._id, content, mediaIds, {});
      const card = await eventually(() => s.slack.state.channel(ANA.channelId).find((m) => m.text.includes(content)));
      const viewer = `${s.slack.url}/__control/channels/${ANA.channelId}`;

      await page.goto(viewer);
      expect(await eventually(() => imagesLoaded(page).then((n) => n > 0 && n))).toBe(3);
      const awaiting = (await page.textContent('article'))!;
      expect(awaiting).toContain('Draft waiting for approval');
      expect(awaiting).toContain('Instagram · Cold Brew Club (@coldbrew.club)');
      expect(awaiting).not.toContain('TikTok');
      expect(awaiting).not.toContain('Privacy');
      expect(awaiting).not.toContain('auto_add_music');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'slack-card-instagram-awaiting.png'), fullPage: true });

      await clickCard(s, card, ANA, 'postdeck_approve', postId);
      const reply = await eventually(
        () => s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === card.ts),
        60_000,
      );
      const published = (await w.t.deps.db.posts.findOne({ _id: postId }))!;
      expect(published.state).toBe('PUBLISHED');
      expect(published.releaseUrl).toBeTruthy();
      expect(reply.text).toBe(`Published on Instagram: ${published.releaseUrl}`);
      expect(
        [...ig.emulator.control.media.values()].filter((m) => m.accountId === account.id && !m.parentId),
      ).toHaveLength(1);
      await eventually(() => card.text.startsWith('Published on Instagram'));
      await page.goto(viewer);
      await eventually(() => imagesLoaded(page).then((n) => n > 0));
      const shown = (await page.textContent('article'))!;
      expect(shown).toContain('Published on Instagram');
      expect(shown).toContain('View on Instagram');
      expect(shown).not.toContain('TikTok');
      expect(await page.locator(`a[href="${published.releaseUrl}"]`).count()).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'slack-card-instagram-published.png'), fullPage: true });
    },
  );
});
