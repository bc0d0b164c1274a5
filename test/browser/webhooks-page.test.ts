import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainEvent, relayEvents } from '../../src/core/events/relay.js';
import { openBrowser, SCREENSHOTS, signInContext } from '../support/chat-cards.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { startReceiver, waitUntil } from '../../bench/support/webhook-receiver.js';

// The /webhooks page in Chromium: add an endpoint (its secret shown once), see a refused address,
// watch its last deliveries (one delivered, one failing), delete it. Private endpoints are allowed here,
// because the receiver is on loopback; a refusal is shown with an address the guard refuses always.
let t: TestDatabase;
let server: TestServer;
let user: TestUser;
let browser: Browser;
let page: Page;
const receiver = await startReceiver();

beforeAll(async () => {
  t = await openTestDatabase({ webhooks: { allowPrivate: true, retryBaseMs: 60_000 } });
  server = await startTestServer(t);
  user = await buildUser(t.deps, { name: 'Wanda Webhook' });
  await t.startWorker();
  ({ browser, page } = await openBrowser());
  await signInContext(page.context(), server.url, user);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
  await receiver.close();
});

describe('the webhooks page', () => {
  it('adds an endpoint, shows its secret once and its deliveries, and deletes it', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/keys`);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(/\/webhooks\?ws=/);

    await page.getByLabel('URL').fill('not a url');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('The endpoint was not added').waitFor();
    expect(await page.locator('.field.invalid').count()).toBe(1);

    await page.getByLabel('URL').fill(`${receiver.url}/hooks`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('.secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    receiver.expect('/hooks', secret, 0);

    const at = Date.now();
    const event = (type: 'post.published' | 'post.failed', subjectId: string, offset: number) =>
      domainEvent(type, { workspaceId: user.workspaceId, subjectId, actor: { type: 'system' } }, new Date(at + offset));
    await relayEvents(t.deps, [event('post.published', 'post-one', 0)]);
    await waitUntil(() => receiver.at('/hooks').length === 1, 'the delivery arrived');
    expect(receiver.at('/hooks')[0]!.verified).toMatchObject({ type: 'post.published' });
    // The receiver goes away: the next event's first attempt fails and waits a minute for the next.
    await receiver.close();
    await relayEvents(t.deps, [event('post.failed', 'post-two', 1)]);
    await waitUntil(
      async () =>
        (await t.deps.db.webhookDeliveries.countDocuments({ workspaceId: user.workspaceId, attempts: 1 })) === 2,
      'the second attempt failed',
    );

    await page.goto(`${server.url}/webhooks`);
    expect(await page.locator('.secret').count()).toBe(0); // shown once
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toMatch(/post\.failed[\s\S]*Pending[\s\S]*1[\s\S]*connection_refused/);
    expect(await rows.nth(1).textContent()).toMatch(/post\.published[\s\S]*Delivered[\s\S]*1[\s\S]*HTTP 200/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'webhooks-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'webhooks-390.png'), fullPage: true });

    await page.getByRole('button', { name: /^Delete / }).click();
    await page.getByText('The endpoint was deleted').waitFor();
    expect(await page.getByText('No endpoints yet.').count()).toBe(1);
    expect(await t.deps.db.webhookEndpoints.countDocuments({ workspaceId: user.workspaceId })).toBe(0);
  });

  it('sends a test event and redelivers it, and masks credentials in the URL', async () => {
    const tested = await startReceiver();
    try {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${server.url}/webhooks`);
      const url = `${tested.url.replace('http://', 'http://hook-user:hook-pass@')}/tested`;
      await page.getByLabel('URL').fill(url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      tested.expect('/tested', (await page.locator('.secret').textContent())!.trim(), 0);
      expect(await page.content()).not.toContain('hook-pass');
      expect(await page.locator('section.card h2').textContent()).toContain('http://***:***@127.0.0.1');

      await page.getByRole('button', { name: /^Send a test event to / }).click();
      await page.getByText('A webhook.test event is on its way').waitFor();
      await waitUntil(() => tested.at('/tested').length === 1, 'the test event arrived');
      const [first] = tested.at('/tested');
      expect(first!.verified).toMatchObject({ type: 'webhook.test' });
      expect(first!.headers.authorization).toBe(`Basic ${Buffer.from('hook-user:hook-pass').toString('base64')}`);
      await waitUntil(
        async () =>
          (await t.deps.db.webhookDeliveries.countDocuments({ workspaceId: user.workspaceId, state: 'delivered' })) ===
          1,
        'the test delivery is logged delivered',
      );

      await page.goto(`${server.url}/webhooks`);
      const row = page.locator('tbody tr');
      expect(await row.textContent()).toMatch(/webhook\.test[\s\S]*Delivered[\s\S]*1[\s\S]*HTTP 200/);
      await page.getByRole('button', { name: /^Redeliver webhook\.test / }).click();
      await page.getByText('The delivery is being sent again').waitFor();
      await waitUntil(() => tested.at('/tested').length === 2, 'the redelivery arrived');
      expect(tested.at('/tested')[1]!.id).toBe(first!.id);
      expect(tested.at('/tested')[1]!.verified).toMatchObject({ type: 'webhook.test' });
      await waitUntil(
        async () =>
          (await t.deps.db.webhookDeliveries.findOne({ workspaceId: user.workspaceId }))?.state === 'delivered',
        'the redelivery is logged',
      );
      await page.goto(`${server.url}/webhooks`);
      expect(await row.textContent()).toMatch(/webhook\.test[\s\S]*Delivered[\s\S]*2[\s\S]*HTTP 200/);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'webhooks-test-event-1280.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 900 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'webhooks-test-event-390.png'), fullPage: true });
    } finally {
      await tested.close();
    }
  });
});
