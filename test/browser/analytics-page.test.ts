import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, SCREENSHOTS } from '../support/chat-cards.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import { counts, publishPost } from '../insights/support.js';
import { buildPlatform } from '../support/factories.js';
import { seedAnalytics } from '../web/analytics-support.js';

// /analytics in Chromium at 1280 and 390 px: the chart is drawn, its labels stay readable on a
// phone, the slides load, and nothing runs off the side of the screen.
let t: TestDatabase;
let server: TestServer;
let owner: TestUser;
let trial: TestUser;
let browser: Browser;

beforeAll(async () => {
  t = await openTestDatabase();
  server = await startTestServer(t);
  owner = await buildUser(t.deps, { name: 'Owner' });
  const stranger = await buildUser(t.deps, { name: 'Stranger' });
  await seedAnalytics(t.deps, server, owner, stranger);
  // A trial's workspace: the README's SELF_ONLY example, a public post counted once, one whose count is overdue.
  trial = await buildUser(t.deps, { name: 'Trial' });
  const account = await buildPlatform(t.deps, trial.workspaceId, {
    displayName: 'Emulated Creator',
    displayHandle: 'emulated.creator',
  });
  await publishPost(t.deps, trial, account._id, {
    content: 'Hello',
    releaseId: null,
    privacyLevel: 'SELF_ONLY',
    publishedAgoMs: 0,
  });
  const counted = await publishPost(t.deps, trial, account._id, { content: 'Counted', publishedAgoMs: 4 * 60_000 });
  await recordPostSnapshot(t.deps, counted._id, counts(152_975, 5_229, 1_732, 1_649), new Date());
  await publishPost(t.deps, trial, account._id, {
    content: 'Waiting for its first count',
    publishedAgoMs: 2 * 3_600_000,
  });
  ({ browser } = await openBrowser());
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
});

async function signedInPage(width: number, user: TestUser = owner): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const host = new URL(server.url).hostname;
  await context.addCookies([
    { name: 'pd_session', value: user.session, domain: host, path: '/' },
    { name: 'pd_ws', value: user.workspaceId, domain: host, path: '/' },
  ]);
  return context.newPage();
}

/** Brings every lazy slide into view and waits until each has loaded. */
async function slidesLoaded(page: Page): Promise<number> {
  for (const img of await page.locator('.hook-slides img').all()) await img.scrollIntoViewIfNeeded();
  await page.waitForFunction(
    "[...document.querySelectorAll('.hook-slides img')].every((img) => img.complete && img.naturalWidth > 0)",
  );
  return page.locator('.hook-slides img').count();
}

/** The smallest label of the charts as drawn on screen, in CSS pixels. */
function smallestLabel(page: Page): Promise<number> {
  return page.evaluate<number>(
    "Math.min(...[...document.querySelectorAll('svg.chart text')].map((text) => text.getBoundingClientRect().height))",
  );
}

describe('the analytics page in a browser', { timeout: 120_000 }, () => {
  it('draws the table, the chart, the hooks and the followers at 1280 px', async () => {
    const page = await signedInPage(1280);
    await page.goto(`${server.url}/analytics?days=7`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Analytics');
    const chart = page.getByRole('img', { name: /Views of the period's posts/ });
    const box = (await chart.boundingBox())!;
    expect(box.width).toBeGreaterThan(400);
    expect(await page.locator('svg.chart').first().locator('circle.dot').count()).toBe(8);
    // The line is drawn in the stylesheet's accent colour, not the browser's default black fill.
    const line = await page.evaluate<{ stroke: string; fill: string }>(
      "(({ stroke, fill }) => ({ stroke, fill }))(getComputedStyle(document.querySelector('svg.chart polyline.line')))",
    );
    expect(line).toEqual({ stroke: 'rgb(59, 71, 196)', fill: 'none' });
    expect(await page.locator('table tbody tr').count()).toBe(4);
    expect(await slidesLoaded(page)).toBe(4);
    expect(await smallestLabel(page)).toBeGreaterThanOrEqual(11);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'analytics-1280.png'), fullPage: true });
    await page.context().close();
  });

  it('fits a 390 px phone: no sideways scroll, and chart labels at least 10 px tall', async () => {
    const page = await signedInPage(390);
    await page.goto(`${server.url}/analytics?days=7`);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const chart = (await page.getByRole('img', { name: /Views of the period's posts/ }).boundingBox())!;
    expect(chart.x).toBeGreaterThanOrEqual(0);
    expect(chart.x + chart.width).toBeLessThanOrEqual(390);
    expect(chart.width).toBeGreaterThan(300);
    expect(await smallestLabel(page)).toBeGreaterThanOrEqual(10);
    expect(await slidesLoaded(page)).toBe(4);
    // Every section link is still on screen with Analytics among them.
    for (const link of await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').all()) {
      const box = (await link.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await page.screenshot({ path: path.join(SCREENSHOTS, 'analytics-390.png'), fullPage: true });
    await page.context().close();
  });

  it("shows a trial's posts as they stand: not counted (why), counted with its next count, or due now", async () => {
    const page = await signedInPage(1280, trial);
    const asked = Date.now();
    await page.goto(`${server.url}/analytics`);
    const rows = page.locator('table tbody tr');
    expect(await rows.count()).toBe(3);
    const hidden = rows.filter({ hasText: 'Hello' });
    expect(await hidden.getByText('Unavailable', { exact: true }).isVisible()).toBe(true);
    expect(await hidden.textContent()).toContain(
      'TikTok counts only public posts, and this one was published as Only me (SELF_ONLY)',
    );
    const counted = rows.filter({ hasText: 'Counted' }).first();
    expect(await counted.getByRole('cell', { name: '152,975' }).isVisible()).toBe(true);
    const next = await counted.locator('time').last().getAttribute('datetime');
    expect(Date.parse(next!)).toBeGreaterThan(asked);
    expect(await rows.filter({ hasText: 'Waiting for its first count' }).textContent()).toContain(
      'No numbers yet · next count due now',
    );
    // The chart has the counted post's views.
    expect(await page.getByRole('img', { name: /Views of the period's posts.*152,975 by now/ }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'analytics-trial-1280.png'), fullPage: true });
    await page.context().close();
  });
});
