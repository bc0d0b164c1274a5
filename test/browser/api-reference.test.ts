import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { openBrowser, SCREENSHOTS } from '../support/chat-cards.js';

// The API reference as a reader sees it: Redoc, served by Postdeck, rendering openapi.json in Chromium.
let t: TestDatabase;
let server: TestServer;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  t = await openTestDatabase();
  server = await startTestServer(t);
  ({ browser, page } = await openBrowser());
  await page.setViewportSize({ width: 1280, height: 900 });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('request', (request) => {
    if (
      !request.url().startsWith(server.url) &&
      !request.url().startsWith('blob:') &&
      !request.url().startsWith('data:')
    )
      problems.push(`left the server: ${request.url()}`);
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
});

describe('the API reference page', () => {
  it(
    'renders every operation and schema from openapi.json with the auth scheme, all from Postdeck itself',
    { timeout: 90_000 },
    async () => {
      await page.goto(`${server.url}/public/v1/docs`);
      await page.getByText('Authorizations:').first().waitFor({ timeout: 30_000 });
      const text = (await page.textContent('body')) ?? '';
      const document = (await (await server.request('/public/v1/openapi.json')).json()) as {
        paths: Record<string, Record<string, { summary?: string; description?: string }>>;
        components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
      };
      // The API's name and version, not "Postdeck API (1)".
      expect(await page.getByRole('heading', { level: 1 }).first().textContent()).toBe('Postdeck API (v1)');
      // Each operation under its short title, with its whole summary as the text below it.
      const headings = (await page.getByRole('heading', { level: 2 }).allTextContents()).map((h) => h.trim());
      for (const operations of Object.values(document.paths)) {
        for (const operation of Object.values(operations)) {
          expect(headings).toContain(operation.summary);
          // Redoc renders the text as Markdown: `code` spans lose their backticks.
          expect(text).toContain(operation.description?.replaceAll('`', ''));
        }
      }
      // A create request shows the TikTok settings a post needs, from the named examples.
      await page.locator('a[href="#tag/Posts/operation/createPost"]').first().click();
      const samples = page.locator('[data-section-id="tag/Posts/operation/createPost"]');
      // The examples are the options of the request samples' drop-down.
      await samples
        .locator('option', { hasText: 'A photo carousel, published now' })
        .first()
        .waitFor({ state: 'attached', timeout: 30_000 });
      const createText = (await samples.textContent()) ?? '';
      expect(createText).toContain('DIRECT_POST');
      expect(createText).toContain('PUBLIC_TO_EVERYONE');
      expect(createText).toContain('photo_cover_index');
      await samples.screenshot({ path: path.join(SCREENSHOTS, 'api-reference-create-post.png') });
      expect(Object.keys(document.components.securitySchemes).length).toBeGreaterThan(0);
      // Request bodies are drawn field by field, not as a bare $ref.
      expect(text).toContain('platformIds');
      expect(text).toContain('scheduledFor');
      expect(text).not.toContain('$ref');
      expect(problems).toEqual([]);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'api-reference.png') });
    },
  );
});
