import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import { PUBLIC_SETTINGS, storeMedia, type PublishingWorld } from '../publishing/support.js';
import { launchChromium } from './chromium.js';

// Looking at approval cards: the chat emulators draw a channel, Chromium loads the slide previews
// from Postdeck's public media URLs, and screenshots are kept for review.
export const SCREENSHOTS = path.resolve('test-artifacts/screenshots');

export async function openBrowser(): Promise<{ browser: Browser; page: Page }> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 800, height: 900 } })).newPage();
  return { browser, page };
}

/** Signs `user` in to the server at `serverUrl` in this browser context (its session and workspace cookies). */
export async function signInContext(
  context: BrowserContext,
  serverUrl: string,
  user: { session: string; workspaceId: string },
): Promise<void> {
  const domain = new URL(serverUrl).hostname;
  await context.addCookies([
    { name: 'pd_session', value: user.session, domain, path: '/' },
    { name: 'pd_ws', value: user.workspaceId, domain, path: '/' },
  ]);
}

/** A 9:16 slide: a flat colour with its number written large, so the order shows in the picture. */
function slide(n: number, colour: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1080" height="1920"><rect width="100%" height="100%" fill="${colour}"/><text x="540" y="1000" font-size="360" text-anchor="middle" fill="white" font-family="sans-serif">${n}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

/** A draft created through `POST /public/v1/posts` with the tenant's key; answers its post id. */
export async function createRestDraft(
  w: PublishingWorld,
  platformId: string,
  content: string,
  mediaIds: string[],
  settings: Record<string, unknown> = PUBLIC_SETTINGS,
): Promise<string> {
  const created = await fetch(`${w.server.url}/public/v1/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ platformIds: [platformId], content, mode: 'draft', mediaIds, settings }),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { results: { post: { root: { id: string } } }[] }).results[0]!.post.root.id;
}

/** A three-slide draft (auto_add_music on) created through REST; answers its post id. */
export async function threeSlideDraft(w: PublishingWorld, platform: PlatformDoc, content: string): Promise<string> {
  const media = [];
  for (const [i, colour] of ['#d6336c', '#1c7ed6', '#2b8a3e'].entries()) {
    media.push(await storeMedia(w, await slide(i + 1, colour)));
  }
  return createRestDraft(
    w,
    platform._id,
    content,
    media.map((m) => m._id),
    { ...PUBLIC_SETTINGS, auto_add_music: true },
  );
}

/** How many images the page shows once every one has loaded with real pixels; -1 while any has not. */
export function imagesLoaded(page: Page): Promise<number> {
  return page.$$eval('img', (images) =>
    images.every((image) => image.complete && image.naturalWidth > 0) ? images.length : -1,
  );
}
