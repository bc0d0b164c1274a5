import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { openBrowser, SCREENSHOTS, signInContext } from '../support/chat-cards.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';
import { connectAccount } from '../platforms/support.js';

// The account pages on a phone (390 px) and a laptop (1280 px): every button on screen, no sideways scroll.
let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let user: TestUser;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  f = await startTikTokFixture();
  t = await openTestDatabase({ tiktok: f.config });
  server = await startTestServer(t);
  user = await buildUser(t.deps, { name: 'Nora Narrow' });
  for (const name of ['Claude Code on a very long machine name (OAuth)', 'CI']) {
    await mintApiKey(t.deps, { ...user.scope, userId: user.user.id, name });
  }
  const account = await f.createAccount({ displayName: 'A Creator With A Long Display Name' });
  await connectAccount(t.deps, user.scope, account.openId);
  ({ browser, page } = await openBrowser());
  await signInContext(page.context(), server.url, user);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
  await f?.emulator.stop();
});

describe('the account pages at 390 and 1280 px', () => {
  for (const width of [390, 1280]) {
    it(`keep every button on screen at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });
      for (const [pathname, button] of [
        ['/keys', 'Revoke'],
        ['/platforms', 'Disconnect'],
        ['/settings', 'Save settings'],
      ] as const) {
        await page.goto(`${server.url}${pathname}`);
        const buttons = page.getByRole('button', { name: button });
        expect(await buttons.count()).toBeGreaterThan(0);
        for (const each of await buttons.all()) {
          const box = (await each.boundingBox())!;
          expect(box.x).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(width);
        }
        const overflow = await page.evaluate('document.documentElement.scrollWidth');
        expect(overflow).toBeLessThanOrEqual(width);
        await page.screenshot({ path: path.join(SCREENSHOTS, `${pathname.slice(1)}-${width}.png`), fullPage: true });
      }
    });
  }
});
