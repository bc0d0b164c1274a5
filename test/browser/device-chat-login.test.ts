import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatLogin } from '../../src/core/chat/login.js';
import { useTestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { openBrowser, SCREENSHOTS, signInContext } from '../support/chat-cards.js';

// The verification page as the person who typed `/postdeck login` in Slack sees it, in Chromium.
const { t, server } = await useTestServer();
let user: TestUser;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  user = await buildUser(t.deps, { name: 'Sam Slack' });
  ({ browser, page } = await openBrowser());
  await signInContext(page.context(), server.url, user);
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

describe('approving a Slack login on the device page', () => {
  it('asks to link Slack and, once approved, sends the person back to Slack, not to a terminal', async () => {
    const started = await startChatLogin(t.deps, {
      platform: 'slack',
      teamId: 'T0ACME',
      teamName: 'Acme',
      chatUserId: 'U0SAM',
      chatUserName: 'sam',
      replyTarget: 'https://hooks.slack.test/response',
      publicUrl: server.url,
    });
    await page.goto(started.verificationUriComplete);
    await page.getByRole('heading', { name: 'Link Slack to Postdeck' }).waitFor();
    expect(await page.getByLabel('Device code').textContent()).toBe(started.userCode);
    expect(await page.locator('main').innerText()).toContain('Check that this code matches the one Slack showed you:');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'device-slack-confirm.png'), fullPage: true });

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Slack linked' }).waitFor();
    const result = await page.locator('main').innerText();
    expect(result).toContain('You can go back to Slack.');
    expect(result).toContain('The bot confirms the link there within a few seconds.');
    expect(result).not.toMatch(/terminal/i);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'device-slack-approved.png'), fullPage: true });
  });
});
