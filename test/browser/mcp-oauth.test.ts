import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { buildUser } from '../support/identity.js';
import { freePort } from '../support/spawn.js';
import { launchChromium } from '../support/chromium.js';

// A remote MCP client that only speaks OAuth: the SDK's own client-side OAuth (discovery, dynamic
// registration, PKCE, the code exchange) against Postdeck, with Debian's Chromium as the person's browser.
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
/** Where the agent would listen for the redirect; Chromium's requests there are answered by the test. */
const CALLBACK = 'http://127.0.0.1:7788/oauth/callback';

let t: TestDatabase;
let server: TestServer;
let base: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  t = await openTestDatabase();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await startTestServer(t, { port, app: { publicUrl: base } });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1000, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server.stop();
  await t.close();
});

/** An agent's OAuth state, kept in memory; the authorization URL is handed to the browser. */
class AgentAuth implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  get redirectUrl(): string {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Remote agent',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return 'agent-state-1';
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

const transport = (auth: AgentAuth) =>
  new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: auth });

describe('connecting a remote MCP client by OAuth', () => {
  it('discovers, registers, asks the person in the browser, exchanges the code, lists platforms; revoking on /keys ends it', async () => {
    const user = await buildUser(t.deps, { name: 'Olga Owner' });
    const auth = new AgentAuth();
    const first = transport(auth);
    await expect(new Client({ name: 'remote-agent', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    expect(auth.information?.client_id).toMatch(/^pdc_/);
    const authorizationUrl = auth.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${base}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${base}/mcp`);

    // The person's browser: sign in, see the consent page, allow; the redirect lands on the agent.
    let callback: URL | undefined;
    await page.route(`${new URL(CALLBACK).origin}/**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can close this window.' });
    });
    await page.goto(authorizationUrl.toString());
    await page.waitForURL((url) => url.pathname === '/signin');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Allow Remote agent?' }).waitFor();
    expect(await page.getByRole('radio').count()).toBe(1);
    expect(await page.getByRole('radio').isChecked()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'mcp-oauth-consent.png'), fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${CALLBACK}?`));
    expect(callback?.searchParams.get('code')).toMatch(/^pda_/);
    expect(callback!.searchParams.get('state')).toBe('agent-state-1');

    await first.finishAuth(callback!.searchParams.get('code')!);
    expect(auth.saved?.token_type).toBe('Bearer');
    const client = new Client({ name: 'remote-agent', version: '1.0.0' });
    await client.connect(transport(auth));
    const listed = (await client.callTool({ name: 'list_platforms', arguments: {} })) as CallToolResult;
    expect(listed.structuredContent).toEqual({ platforms: [] });

    // The grant is an API key of the chosen workspace: listed on /keys and revoked there.
    await page.goto(`${base}/keys`);
    const revoke = page.getByRole('button', { name: /^Revoke Remote agent \(OAuth\)/ });
    await revoke.click();
    await page.getByText('Revoked').first().waitFor();
    await expect(client.callTool({ name: 'list_platforms', arguments: {} })).rejects.toThrow(UnauthorizedError);
    const raw = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth.saved!.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await client.close();
  }, 90_000);
});
