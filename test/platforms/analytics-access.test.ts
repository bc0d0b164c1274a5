import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import { startTikTokConnection } from '../../src/core/providers/tiktok/connect/connect.js';
import { ANALYTICS_SCOPES, POSTING_SCOPES } from '../../src/core/providers/tiktok/config.js';
import { launchChromium } from '../support/chromium.js';
import type { TestDatabase } from '../support/db.js';
import type { TestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import type { TikTokFixture } from '../support/tiktok.js';
import { decodeEntities, WebClient } from '../support/web.js';
import { connectAccount, control } from './support.js';

const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
/** What Postdeck asked TikTok for before analytics: an account connected then holds exactly these. */
const OLD_SCOPES = ['user.info.basic', 'user.info.profile', 'video.publish', 'video.upload'];

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let stack: TikTokStack;
let alice: TestUser;
let apiKey: string;
let oldAccount: { openId: string };
let oldPlatformId: string;
let newPlatformId: string;
beforeAll(async () => {
  stack = await startTikTokStack({ emulatorClient: true });
  ({ f, t, server } = stack);
  alice = await buildUser(t.deps, { name: 'Alice' });
  ({ apiKey } = await mintApiKey(t.deps, { ...alice.scope, userId: alice.user.id, name: 'analytics test' }));
  // Connected before: TikTok granted only the publishing scopes, as the old consent request asked.
  oldAccount = await f.createAccount({
    displayName: 'Old Connection',
    username: 'old.connection',
    deniedScopes: ['video.list', 'user.info.stats'],
  });
  const oldPlatform = await connectAccount(t.deps, alice.scope, oldAccount.openId);
  oldPlatformId = oldPlatform._id;
  expect(oldPlatform.metadata.scopes).toEqual(OLD_SCOPES);
  const fresh = await f.createAccount({ displayName: 'New Connection', username: 'new.connection' });
  newPlatformId = (await connectAccount(t.deps, alice.scope, fresh.openId))._id;
});
afterAll(() => stack.stop());

type Listed = { id: string; analytics: Record<string, unknown> };

async function listed(): Promise<Listed[]> {
  const response = await server.request('/public/v1/platforms', { apiKey: apiKey });
  expect(response.status).toBe(200);
  return ((await response.json()) as { platforms: Listed[] }).platforms;
}

const NOT_GRANTED = {
  granted: false,
  missingScopes: ['video.list', 'user.info.stats'],
  reason: expect.stringContaining('video.list and user.info.stats') as unknown,
  fix: expect.stringMatching(/^Reconnect the account to grant analytics/) as unknown,
};
const GRANTED = { granted: true, missingScopes: [], reason: null, fix: null };

describe('analytics access of connected accounts', () => {
  it('asks TikTok for video.list and user.info.stats when connecting, as the consent page shows', async () => {
    expect(POSTING_SCOPES).toEqual(OLD_SCOPES);
    expect(ANALYTICS_SCOPES).toEqual(['video.list', 'user.info.stats']);
    const started = await startTikTokConnection(t.deps, alice.scope, { binding: 'session:consent-page' });
    expect(new URL(started.authorizeUrl).searchParams.get('scope')?.split(',')).toEqual([
      ...OLD_SCOPES,
      'video.list',
      'user.info.stats',
    ]);
    const consent = await (await fetch(started.authorizeUrl)).text();
    expect(consent).toContain('<code>video.list</code> <code>user.info.stats</code>');
  });

  it('lists an account connected with the old scopes as ready but without analytics, a new one with them', async () => {
    const platforms = await listed();
    expect(platforms.find((p) => p.id === oldPlatformId)?.analytics).toEqual(NOT_GRANTED);
    expect(platforms.find((p) => p.id === newPlatformId)?.analytics).toEqual(GRANTED);
    // The old connection keeps working for publishing: its posting schema still reads TikTok's creator info.
    const schema = await server.request(`/public/v1/platforms/${oldPlatformId}/schema`, { apiKey: apiKey });
    expect(schema.status).toBe(200);
  });

  it('says the same through the MCP tool, and the OpenAPI document describes the field', async () => {
    const client = new Client({ name: 'postdeck-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
    try {
      const tool = (await client.listTools()).tools.find((each) => each.name === 'list_platforms')!;
      expect(tool.description).toContain('reconnecting the account grants them');
      const result = (await client.callTool({ name: 'list_platforms', arguments: {} })) as CallToolResult;
      const platforms = (result.structuredContent as { platforms: Listed[] }).platforms;
      expect(platforms.find((p) => p.id === oldPlatformId)?.analytics).toEqual(NOT_GRANTED);
      expect(platforms.find((p) => p.id === newPlatformId)?.analytics).toEqual(GRANTED);
    } finally {
      await client.close();
    }
    const document = (await (await server.request('/public/v1/openapi.json')).json()) as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
    };
    const platform = document.components.schemas.Platform!;
    expect(platform.required).toContain('analytics');
    expect(document.components.schemas.PlatformAnalytics?.properties).toHaveProperty('fix');
  });

  it('shows the notice and a Reconnect button on /platforms for the old account only, and draws it', async () => {
    const browser = new WebClient(server);
    await browser.signIn(alice.email, alice.password);
    const page = decodeEntities((await browser.get(`/platforms?ws=${alice.workspaceId}`)).text);
    expect(page).toContain('1 account does not share analytics yet.');
    const rows = page.split('<tr').filter((row) => row.includes('Connection</strong>'));
    const oldRow = rows.find((row) => row.includes('Old Connection'))!;
    const newRow = rows.find((row) => row.includes('New Connection'))!;
    expect(oldRow).toContain('Not granted');
    expect(oldRow).toContain('Reconnect the account to grant analytics');
    expect(oldRow).toContain('aria-label="Reconnect @old.connection"');
    expect(newRow).toContain('<span class="badge">Granted</span>');
    expect(newRow).not.toContain('Reconnect');

    await mkdir(SCREENSHOTS, { recursive: true });
    const chrome = await launchChromium();
    try {
      for (const width of [1280, 390]) {
        const tab = await chrome.newPage({ viewport: { width, height: 800 } });
        await tab.goto(`${server.url}/signin`);
        await tab.getByLabel('Email').fill(alice.email);
        await tab.getByLabel('Password').fill(alice.password);
        await tab.getByRole('button', { name: 'Sign in' }).click();
        await tab.goto(`${server.url}/platforms?ws=${alice.workspaceId}`);
        await expect.poll(() => tab.getByText('Not granted').isVisible()).toBe(true);
        await tab.screenshot({ path: path.join(SCREENSHOTS, `platforms-analytics-${width}.png`), fullPage: true });
        await tab.close();
      }
    } finally {
      await chrome.close();
    }
  }, 60_000);

  it('grants analytics once the old account is reconnected and allows them', async () => {
    await control(f, `/accounts/${oldAccount.openId}`, { deniedScopes: [] }, 'PATCH');
    const again = await connectAccount(t.deps, alice.scope, oldAccount.openId);
    expect(again._id).toBe(oldPlatformId);
    expect((await listed()).find((p) => p.id === oldPlatformId)?.analytics).toEqual(GRANTED);
    const browser = new WebClient(server);
    await browser.signIn(alice.email, alice.password);
    expect((await browser.get(`/platforms?ws=${alice.workspaceId}`)).text).not.toContain('share analytics yet');
  });
});
