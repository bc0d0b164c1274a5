import path from 'node:path';
import { Readable } from 'node:stream';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaDoc } from '../../src/core/media/documents.js';
import { ingestUpload } from '../../src/core/media/ingest.js';
import { createUploadedMedia } from '../../src/core/media/upload-media.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { connectAccount } from '../platforms/support.js';
import { openBrowser, SCREENSHOTS, signInContext } from '../support/chat-cards.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { buildPost, DIRECT } from '../support/posts.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

// The pages on a 390 px phone: a compact header, a week that a busy day does not stretch to
// thousands of pixels, previews drawn at the slide's own shape, and an invite link that fits.
let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let user: TestUser;
let platform: PlatformDoc;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const today = new Date().toISOString().slice(0, 10);

/** A slide of `width` × `height` stored as an upload stores it (with its real preview). */
async function slide(width: number, height: number, colour: string): Promise<MediaDoc> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${colour}"/><rect x="8%" y="8%" width="84%" height="84%" fill="none" stroke="white" stroke-width="24"/></svg>`;
  const bytes = await sharp(Buffer.from(svg)).jpeg().toBuffer();
  const file = await ingestUpload(t.deps.media, Readable.from([bytes]));
  const media = await createUploadedMedia(t.deps, t.deps.media, user.scope, file, {});
  return (await t.deps.db.media.findOne({ _id: media.id }))!;
}

beforeAll(async () => {
  f = await startTikTokFixture();
  t = await openTestDatabase({ tiktok: f.config });
  server = await startTestServer(t);
  user = await buildUser(t.deps, { name: 'Pia Phone' });
  const account = await f.createAccount({ displayName: 'Phone Creator', username: 'phone.creator' });
  platform = await connectAccount(t.deps, user.scope, account.openId);
  // A busy day: seven posts today, 4:5 carousels and 9:16 slides, each with a caption.
  const portrait = await slide(1080, 1350, '#d6336c');
  const tall = await slide(1080, 1920, '#1c7ed6');
  for (let n = 0; n < 7; n++) {
    await buildPost(t.deps, user.workspaceId, {
      accountId: user.accountId,
      platformId: platform._id,
      mediaIds: [n % 2 === 0 ? portrait._id : tall._id],
      settings: { ...DIRECT },
      content: `Post ${n + 1} of a busy day: a caption long enough to wrap onto a second line #busy`,
    });
  }
  ({ browser } = await openBrowser());
  context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  await signInContext(context, server.url, user);
  page = await context.newPage();
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
  await f?.emulator.stop();
});

const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, name), fullPage: true });
const pageHeight = () => page.evaluate<number>('document.documentElement.scrollHeight');
const pageWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');

/** Every preview's drawn and natural proportions (width / height), once each has loaded. */
async function previewShapes(): Promise<{ drawn: number; natural: number }[]> {
  // Lazy images load only near the viewport: bring each into view.
  for (const img of await page.locator('img.post-thumb').all()) await img.scrollIntoViewIfNeeded();
  await page.waitForFunction(
    "[...document.querySelectorAll('img.post-thumb')].every((img) => img.complete && img.naturalWidth > 0)",
  );
  return page.evaluate<{ drawn: number; natural: number }[]>(
    "[...document.querySelectorAll('img.post-thumb')].map((img) => { const box = img.getBoundingClientRect(); return { drawn: box.width / box.height, natural: img.naturalWidth / img.naturalHeight }; })",
  );
}

describe('the pages on a 390 px phone', { timeout: 120_000 }, () => {
  it('keeps the header to two short rows, so content starts near the top', async () => {
    for (const pathname of ['/posts', '/keys', '/members', '/usage']) {
      await page.goto(`${server.url}${pathname}`);
      const header = (await page.locator('header.top').boundingBox())!;
      const heading = (await page.getByRole('heading', { level: 1 }).boundingBox())!;
      // Three wrapped rows of sections were about 255 px before any content.
      expect(header.height, pathname).toBeLessThanOrEqual(130);
      expect(heading.y, pathname).toBeLessThanOrEqual(170);
      expect(await pageWidth(), pathname).toBeLessThanOrEqual(390);
      // Every section is still one tap away, and on screen.
      for (const link of await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').all()) {
        const box = (await link.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      if (pathname === '/usage') await shot('phone-usage.png');
    }
    await page.goto(`${server.url}/posts`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'phone-header.png') });
  });

  it('shows a day of seven posts as compact cards: the week is not thousands of pixels long', async () => {
    await page.goto(`${server.url}/posts?view=week&date=${today}`);
    expect(await page.locator('li.day.today article.post').count()).toBe(7);
    // A full-width preview per card made this page about 5,400 px.
    expect(await pageHeight()).toBeLessThanOrEqual(2_600);
    for (const card of await page.locator('li.day.today article.post').all()) {
      expect((await card.boundingBox())!.height).toBeLessThanOrEqual(200);
    }
    expect(await pageWidth()).toBeLessThanOrEqual(390);
    await shot('phone-posts-week.png');
  });

  it('draws every preview at its slide’s own shape (4:5 stays 4:5), in the week and the day, phone and desktop', async () => {
    for (const [width, view] of [
      [390, 'week'],
      [390, 'day'],
      [1280, 'week'],
      [1280, 'day'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${server.url}/posts?view=${view}&date=${today}`);
      const shapes = await previewShapes();
      expect(shapes).toHaveLength(7);
      for (const { drawn, natural } of shapes)
        expect(Math.abs(drawn - natural), `${view} at ${width}`).toBeLessThan(0.02);
      const ratios = shapes.map((s) => Math.round(s.natural * 100) / 100);
      expect(ratios).toContain(0.8);
      expect(ratios).toContain(0.56);
      if (view === 'day' && width === 390) await shot('phone-posts-day.png');
      if (view === 'week' && width === 1280) await shot('desktop-posts-week.png');
    }
    await page.setViewportSize({ width: 390, height: 844 });
  });

  it('shows a new invite link whole, with a Copy button that copies it', async () => {
    await page.goto(`${server.url}/members`);
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const link = page.locator('#invite-link');
    await link.waitFor();
    const text = (await link.textContent())!.trim();
    expect(text).toMatch(/\/invite\?token=pdi_[A-Za-z0-9_-]{43}$/);
    // Whole on screen: nothing scrolled away inside the box, the box inside the viewport.
    const fits = await page.evaluate<boolean>(
      "(() => { const box = document.getElementById('invite-link'); return box.scrollWidth <= box.clientWidth; })()",
    );
    expect(fits).toBe(true);
    const box = (await link.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await pageWidth()).toBeLessThanOrEqual(390);

    const copy = page.getByRole('button', { name: 'Copy link' });
    expect(await copy.isVisible()).toBe(true);
    await copy.click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(text);
    await shot('phone-members-invite.png');
  });
});
