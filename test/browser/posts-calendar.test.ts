import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { connectAccount } from '../platforms/support.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildImages, buildPost, buildVideo, DIRECT } from '../support/posts.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { launchChromium } from '../support/chromium.js';

// The posts calendar the way a person uses it: Debian's Chromium on the real pages of the HTTP app
// (in this process, over a test database, its TikTok client aimed at an emulator so publishing a
// draft is checked against a live creator), signing up, then scheduling and deleting drafts.
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
const owner = { name: 'Cal Owner', email: 'cal@example.test', password: 'browser test password 3' };
const DAY = 86_400_000;

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let workspaceId: string;
let platform: PlatformDoc;
let toSchedule: PostDoc;
let toDelete: PostDoc;
const today = new Date().toISOString().slice(0, 10);
const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  f = await startTikTokFixture();
  t = await openTestDatabase({ tiktok: f.config });
  server = await startTestServer(t, { app: { openSignup: true } });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  page = await context.newPage();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
  await f?.emulator.stop();
});

const shot = (name: string, on: Page = page) => on.screenshot({ path: path.join(SCREENSHOTS, name), fullPage: true });

/** A draft TikTok would accept, stored as the API stores one: the connected account, a READY video. */
async function draft(content: string, overrides: Partial<PostDoc> = {}): Promise<PostDoc> {
  const video = await buildVideo(t.deps, workspaceId);
  const workspace = await t.deps.db.workspaces.findOne({ _id: workspaceId });
  return buildPost(t.deps, workspaceId, {
    accountId: workspace!.accountId,
    platformId: platform._id,
    mediaIds: [video._id],
    settings: { ...DIRECT },
    content,
    ...overrides,
  });
}

const card = (id: string, on: Page = page) => on.locator(`#post-${id}`);

/** How wide the laid-out document is: wider than the viewport means sideways scrolling. */
const pageWidth = (on: Page) => on.evaluate<number>('document.documentElement.scrollWidth');

describe('the posts calendar in the browser', { timeout: 120_000 }, () => {
  it('signs up, finds Posts in the header and an empty week', async () => {
    await page.goto(`${server.url}/signup`);
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${server.url}/keys`);

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Posts' }).click();
    await page.waitForURL(`${server.url}/posts`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Posts of ${owner.name}'s workspace`);
    await page.getByText('No posts this week.').waitFor();
    const todayLink = await page.getByRole('link', { name: 'Today' }).getAttribute('href');
    workspaceId = new URL(todayLink!, server.url).searchParams.get('ws')!;
    expect(workspaceId).toMatch(/^[0-9a-f-]{36}$/);
    await shot('posts-empty.png');
  });

  it('shows drafts and posts of every state in the week view, and a draft in the day view', async () => {
    const workspace = await t.deps.db.workspaces.findOne({ _id: workspaceId });
    const account = await f.createAccount({ displayName: 'Cal Creator', username: 'cal.creator' });
    platform = await connectAccount(
      t.deps,
      { workspaceId, accountId: workspace!.accountId, actor: { type: 'system' } },
      account.openId,
    );
    toSchedule = await draft('Morning coffee ritual, filmed in one take. #coffee #morning');
    toDelete = await draft('A take we will not use');
    // Posts of other states this week, so the week shows every badge.
    const monday = new Date(`${today}T00:00:00Z`);
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
    const at = (days: number, hour: number) => new Date(monday.getTime() + days * DAY + hour * 3_600_000);
    await draft('Weekly recap: the best of the comments', { state: 'QUEUE', scheduledFor: at(4, 17) });
    await draft('Latte art in slow motion', {
      state: 'PUBLISHED',
      scheduledFor: at(1, 9),
      releaseId: '7311111111111111111',
      releaseUrl: 'https://www.tiktok.com/@cal.creator/video/7311111111111111111',
    });
    await draft('Behind the counter', {
      state: 'ERROR',
      scheduledFor: at(2, 14.5),
      errorText: 'TikTok refused the video: it is shorter than the 3 seconds TikTok accepts. Upload a longer video.',
    });
    const images = await buildImages(t.deps, workspaceId, 4);
    await draft('Four beans, four roasts', { scheduledFor: at(5, 11), mediaIds: images.map((m) => m._id) });

    await page.goto(`${server.url}/posts`);
    const todayColumn = page.locator('li.day.today');
    expect(await card(toSchedule._id).isVisible()).toBe(true);
    expect(await todayColumn.locator(`#post-${toSchedule._id}`).count()).toBe(1);
    expect(await card(toSchedule._id).getByText('DRAFT', { exact: true }).isVisible()).toBe(true);
    expect(await card(toSchedule._id).getByText('No time set').isVisible()).toBe(true);
    expect(await card(toSchedule._id).getByText('@cal.creator').isVisible()).toBe(true);
    expect(await card(toSchedule._id).getByText('1 video').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'View on TikTok' }).getAttribute('href')).toBe(
      'https://www.tiktok.com/@cal.creator/video/7311111111111111111',
    );
    expect(await page.getByText('4 images').isVisible()).toBe(true);
    await shot('posts-week.png');

    await card(toSchedule._id).getByRole('link', { name: 'Manage' }).click();
    await page.waitForURL((url) => url.searchParams.get('view') === 'day' && url.searchParams.get('date') === today);
    expect(await page.getByRole('link', { name: 'Day', exact: true }).getAttribute('aria-current')).toBe('page');
    expect(await card(toSchedule._id).getByRole('button', { name: 'Publish now' }).isVisible()).toBe(true);
    await shot('posts-day.png');
  });

  it('schedules the draft for tomorrow: it leaves today and shows as QUEUE on tomorrow’s day', async () => {
    const post = card(toSchedule._id);
    await post.getByLabel('Publish at (UTC)').fill(`${tomorrow}T10:00`);
    await post.getByRole('button', { name: 'Schedule' }).click();
    await page.getByText('The draft is scheduled: it will be published at the time you set.').waitFor();
    expect(await card(toSchedule._id).count()).toBe(0);

    await page.getByRole('link', { name: 'Next day →' }).click();
    await page.waitForURL((url) => url.searchParams.get('date') === tomorrow);
    const moved = card(toSchedule._id);
    expect(await moved.getByText('QUEUE', { exact: true }).isVisible()).toBe(true);
    expect(await moved.locator('time').textContent()).toBe('10:00 UTC');
    expect(await moved.getByRole('button', { name: 'Reschedule' }).isVisible()).toBe(true);
    expect(await moved.getByRole('button', { name: 'Publish now' }).count()).toBe(0);
    await shot('posts-day-queued.png');
    expect(await t.deps.db.posts.findOne({ _id: toSchedule._id })).toMatchObject({
      state: 'QUEUE',
      scheduledFor: new Date(`${tomorrow}T10:00:00Z`),
    });
  });

  it('shows why a time in the past is refused', async () => {
    await page.getByRole('link', { name: 'Today' }).click();
    await page.waitForURL((url) => url.searchParams.get('date') === today);
    const post = card(toDelete._id);
    await post.getByLabel('Publish at (UTC)').fill('2020-01-01T10:00');
    await post.getByRole('button', { name: 'Schedule' }).click();
    await page
      .getByRole('alert')
      .getByText(/Choose a time in the future: it is now/)
      .waitFor();
    await shot('posts-error.png');
    expect((await t.deps.db.posts.findOne({ _id: toDelete._id }))?.state).toBe('DRAFT');
  });

  it('deletes the other draft only after “yes, delete” is ticked', async () => {
    await page.goto(`${server.url}/posts?ws=${workspaceId}&view=day&date=${today}`);
    const post = card(toDelete._id);
    // Without the tick the browser itself refuses to send the form.
    await post.getByRole('button', { name: 'Delete' }).click();
    expect(await post.isVisible()).toBe(true);
    expect(await t.deps.db.posts.findOne({ _id: toDelete._id })).not.toBeNull();

    await post.getByLabel('Yes, delete this draft').check();
    await post.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('The post was deleted.').waitFor();
    expect(await card(toDelete._id).count()).toBe(0);
    expect(await t.deps.db.posts.findOne({ _id: toDelete._id })).toBeNull();
    await shot('posts-deleted.png');
  });

  it('stacks the week on a 390 px wide phone, with no sideways scrolling', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    const small = await phone.newPage();
    await small.goto(`${server.url}/posts?ws=${workspaceId}&view=week&date=${today}`);
    expect(await pageWidth(small)).toBe(390);
    const columns = await Promise.all(
      (await small.locator('li.day').all()).map(async (day) => (await day.boundingBox())?.x),
    );
    expect(columns).toHaveLength(7);
    expect(new Set(columns).size).toBe(1);
    await shot('posts-week-mobile.png', small);
    await small.goto(`${server.url}/posts?ws=${workspaceId}&view=day&date=${tomorrow}`);
    expect(await pageWidth(small)).toBe(390);
    await shot('posts-day-mobile.png', small);
    await phone.close();
  });
});
