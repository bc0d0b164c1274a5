import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectCreator,
  PUBLIC_SETTINGS,
  startWorld,
  storeMedia,
  type PublishingWorld,
  SLOW,
} from '../publishing/support.js';
import {
  clickCard,
  eventually,
  linkTeam,
  runCommand,
  startSlackWorld,
  type SlackWorld,
} from '../bots/slack-support.js';

// The approval card as a person sees it: the Slack emulator draws the channel, Chromium loads the
// slide previews from Postdeck's public media URLs, and the screenshots are kept for review.
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
const ANA = { userId: 'U0ANA', userName: 'ana', channelId: 'C0APPROVALS' };
let w: PublishingWorld;
let s: SlackWorld;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
  await mkdir(SCREENSHOTS, { recursive: true });
  w = await startWorld();
  s = await startSlackWorld(w);
  await linkTeam(w, s, ANA);
  await runCommand(s, 'approvals here', ANA);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  page = await (await browser.newContext({ viewport: { width: 800, height: 900 } })).newPage();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await w?.close();
});

/** A 9:16 slide: a flat colour with its number written large, so the order shows in the picture. */
function slide(n: number, colour: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1080" height="1920"><rect width="100%" height="100%" fill="${colour}"/><text x="540" y="1000" font-size="360" text-anchor="middle" fill="white" font-family="sans-serif">${n}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

/** Every image on the page has loaded with real pixels. */
async function imagesLoaded(): Promise<number> {
  return page.$$eval('img', (images) =>
    images.every((image) => image.complete && image.naturalWidth > 0) ? images.length : -1,
  );
}

describe('the Slack approval card, looked at', () => {
  it(
    'shows the slides in order, the caption and details, then the result and the link after Approve',
    SLOW,
    async () => {
      const { platform } = await connectCreator(w, { displayName: 'Cold Brew Club' });
      const media = [];
      for (const [i, colour] of ['#d6336c', '#1c7ed6', '#2b8a3e'].entries()) {
        media.push(await storeMedia(w, await slide(i + 1, colour)));
      }
      const content = 'Three ways to make cold brew at home ☕ #coldbrew #coffee';
      const created = await fetch(`${w.server.url}/public/v1/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.tenant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          platformIds: [platform._id],
          content,
          mode: 'draft',
          mediaIds: media.map((m) => m._id),
          settings: { ...PUBLIC_SETTINGS, auto_add_music: true },
        }),
      });
      expect(created.status).toBe(201);
      const card = await eventually(() => s.slack.state.channel(ANA.channelId).find((m) => m.text.includes(content)));
      const viewer = `${s.slack.url}/__control/channels/${ANA.channelId}`;

      await page.goto(viewer);
      expect(await eventually(imagesLoaded)).toBe(3);
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

      const postId = (await w.t.deps.db.posts.findOne({ content }))!._id;
      await clickCard(s, card, ANA, 'postdeck_approve', postId);
      await eventually(() => s.slack.state.channel(ANA.channelId).find((m) => m.threadTs === card.ts), 60_000);
      await eventually(() => card.text.startsWith('Published on TikTok'));
      await page.goto(viewer);
      await eventually(imagesLoaded);
      const published = await page.textContent('article');
      expect(published).toContain('Published on TikTok');
      expect(published).toContain('@U0ANA approved: publishing now');
      expect(published).toContain('View on TikTok');
      expect(await page.$$('button')).toHaveLength(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'slack-card-published.png'), fullPage: true });
    },
  );
});
