import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { purgeExpiredOAuthCodes } from '../../src/core/oauth/token.js';
import { useTestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { freePort } from '../support/spawn.js';
import { WebClient } from '../support/web.js';

// Postdeck's OAuth 2.1 authorization server at the protocol level: metadata, registration, the
// consent page (signed in through the pages, as a browser would) and the token endpoint.
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const { t, server } = await useTestServer({ server: { port, app: { publicUrl: base } } });
const REDIRECT = 'http://127.0.0.1:7777/callback';

const json = (path: string, body: unknown) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });

async function register(extra: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret?: string }> {
  const answer = await json('/oauth/register', { client_name: 'Agent', redirect_uris: [REDIRECT], ...extra });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { client_id: string; client_secret?: string };
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizePath(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    resource: `${base}/mcp`,
    ...extra,
  });
  return `/oauth/authorize?${query.toString()}`;
}

/** Signs `user` in, opens the consent page, allows for their workspace; the redirect's query. */
async function consent(user: TestUser, path: string, decision = 'approve'): Promise<URLSearchParams> {
  const web = new WebClient(server);
  await web.signIn(user.email, user.password);
  const page = await web.get(path);
  expect(page.status).toBe(200);
  const fields = Object.fromEntries(new URL(path, base).searchParams);
  const answer = await web.post('/oauth/authorize', { ...fields, workspaceId: user.workspaceId, decision });
  expect(answer.status).toBe(303);
  expect(answer.location?.startsWith(`${REDIRECT}?`)).toBe(true);
  return new URL(answer.location!).searchParams;
}

describe('OAuth metadata and registration', () => {
  it('publishes protected resource and authorization server metadata, open to any origin', async () => {
    const resource = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(resource.headers.get('access-control-allow-origin')).toBe('*');
    expect(await resource.json()).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    const server = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(server).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
    const preflight = await fetch(`${base}/oauth/token`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const mcp = await fetch(`${base}/mcp`, { method: 'POST' });
    expect(mcp.headers.get('www-authenticate')).toContain(
      `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('registers public and confidential clients and refuses unsafe redirect URIs', async () => {
    const open = await register();
    expect(open.client_id).toMatch(/^pdc_/);
    expect(open.client_secret).toBeUndefined();
    const confidential = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    expect(confidential.client_secret).toMatch(/^pds_/);
    const refused = [
      'http://evil.example/cb',
      'javascript:alert(1)',
      'vbscript:msgbox(1)',
      'VBScript:msgbox(1)',
      'data:text/html,hi',
      'file:///etc/passwd',
      'myapp:/callback',
      'https://app.example/cb#frag',
      'not a uri',
    ];
    for (const uri of refused) {
      const answer = await json('/oauth/register', { redirect_uris: [uri] });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
    const native = await json('/oauth/register', { redirect_uris: ['com.example.app:/oauth/callback'] });
    expect(native.status).toBe(201);
    const noUris = await json('/oauth/register', { client_name: 'x' });
    expect(((await noUris.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    const implicit = await json('/oauth/register', { redirect_uris: [REDIRECT], response_types: ['token'] });
    expect(((await implicit.json()) as { error: string }).error).toBe('invalid_client_metadata');
    expect(await t.deps.db.oauthClients.countDocuments({ clientName: 'x' })).toBe(0);
  });
});

describe('the authorization code flow', () => {
  it('gives a code for the chosen workspace, exchanged once with PKCE for a key that works on /mcp', async () => {
    const user = await buildUser(t.deps);
    const { client_id } = await register();
    const { verifier, challenge } = pkce();
    const answer = await consent(user, authorizePath(client_id, challenge));
    expect(answer.get('state')).toBe('st-1');
    expect(answer.get('iss')).toBe(base);
    const code = answer.get('code')!;

    const wrongVerifier = await form({
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce().verifier,
      client_id,
      redirect_uri: REDIRECT,
    });
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });

    const exchange = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id,
      redirect_uri: REDIRECT,
    };
    const tokens = await form({ ...exchange, resource: `${base}/mcp` });
    expect(tokens.status).toBe(200);
    expect(tokens.headers.get('cache-control')).toContain('no-store');
    const { access_token, token_type } = (await tokens.json()) as { access_token: string; token_type: string };
    expect(token_type).toBe('Bearer');
    const key = await t.deps.db.apiKeys.findOne({ workspaceId: user.workspaceId, name: 'Agent (OAuth)' });
    expect(key?.revokedAt).toBeNull();
    const platforms = await fetch(`${base}/public/v1/platforms`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(platforms.status).toBe(200);

    // A replayed code is refused, and the key it gave is revoked.
    const replay = await form(exchange);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await t.deps.db.apiKeys.findOne({ _id: key!._id }))?.revokedAt).toBeInstanceOf(Date);

    // The audit trail: the person granted access and so created the key, on the web; Postdeck revoked it.
    const trail = await t.deps.db.audit.find({ workspaceId: user.workspaceId }).sort({ at: 1, _id: 1 }).toArray();
    const person = { type: 'user', userId: user.user.id };
    expect(trail.filter((e) => e.action === 'oauth.granted')).toMatchObject([
      {
        actor: person,
        surface: 'web',
        subject: { type: 'oauth_client', id: client_id },
        details: { clientName: 'Agent' },
      },
    ]);
    expect(trail.filter((e) => e.subject.id === key!._id)).toMatchObject([
      { action: 'api_key.created', actor: person, surface: 'web', details: { name: 'Agent (OAuth)' } },
      { action: 'api_key.revoked', actor: { type: 'system' }, surface: 'system' },
    ]);

    // Once expired, the code and its single-use lease are purged.
    const codeId = createHash('sha256').update(code).digest('hex');
    expect(await t.deps.db.leases.countDocuments({ key: `oauth-code:${codeId}` })).toBe(1);
    await t.deps.db.oauthCodes.updateOne({ _id: codeId }, { $set: { expiresAt: new Date(0) } });
    expect(await purgeExpiredOAuthCodes(t.deps)).toBeGreaterThanOrEqual(1);
    expect(await t.deps.db.oauthCodes.countDocuments({ _id: codeId })).toBe(0);
    expect(await t.deps.db.leases.countDocuments({ key: `oauth-code:${codeId}` })).toBe(0);
  });

  it('refuses unknown clients, wrong secrets, other grant types and a code for another client', async () => {
    const user = await buildUser(t.deps);
    const confidential = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    const other = await register();
    const { verifier, challenge } = pkce();
    const code = (await consent(user, authorizePath(confidential.client_id, challenge))).get('code')!;
    const exchange = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT };
    const basic = (secret: string) => ({
      authorization: `Basic ${Buffer.from(`${confidential.client_id}:${secret}`).toString('base64')}`,
    });

    const unknown = await form({ ...exchange, client_id: 'pdc_nobody' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: 'invalid_client' });
    expect((await form(exchange, basic('pds_wrong'))).status).toBe(401);
    expect((await form({ ...exchange, client_id: confidential.client_id })).status).toBe(401);
    expect(await (await form({ ...exchange, client_id: other.client_id })).json()).toMatchObject({
      error: 'invalid_grant',
    });
    expect(await (await form({ ...exchange, grant_type: 'password' }, basic('x'))).json()).toMatchObject({
      error: 'unsupported_grant_type',
    });
    const granted = await form(exchange, basic(confidential.client_secret!));
    expect(granted.status).toBe(200);
  });

  it('shows every error of the request that opens the page on Postdeck, never redirecting it', async () => {
    // The reproduction from issue 23: an open registration naming an attacker's site, then an
    // implicit-flow link opened by someone who has not signed in.
    const { client_id } = await json('/oauth/register', {
      client_name: 'Evil',
      redirect_uris: ['https://evil.example/landing'],
    }).then((answer) => answer.json() as Promise<{ client_id: string }>);
    const query = new URLSearchParams({
      client_id,
      redirect_uri: 'https://evil.example/landing',
      response_type: 'token',
    });
    const repro = await fetch(`${base}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
    expect(repro.status).toBe(400);
    expect(repro.headers.get('location')).toBeNull();
    expect(repro.headers.get('content-type')).toContain('text/html');
    const reproPage = await repro.text();
    expect(reproPage).toContain('response_type must be code');
    expect(reproPage).not.toContain('Evil'); // the name its registrant chose is not shown on an error page

    const user = await buildUser(t.deps);
    const registered = await register();
    const { challenge } = pkce();
    const signedOut = new WebClient(server);
    const signedIn = new WebClient(server);
    await signedIn.signIn(user.email, user.password);
    for (const web of [signedOut, signedIn]) {
      const unknownClient = await web.get(authorizePath('pdc_nobody', challenge));
      expect(unknownClient.status).toBe(400);
      expect(unknownClient.text).toContain('does not know');
      const foreignRedirect = await web.get(
        authorizePath(registered.client_id, challenge, { redirect_uri: 'https://evil.example/' }),
      );
      expect(foreignRedirect.status).toBe(400);
      expect(foreignRedirect.location).toBeNull();
      for (const [extra, words] of [
        [{ code_challenge_method: 'plain' }, 'code_challenge_method must be S256'],
        [{ code_challenge: '' }, 'PKCE is required'],
        [{ response_type: 'token' }, 'response_type must be code'],
        [{ resource: 'https://elsewhere.example/mcp' }, 'The only resource offered'],
      ] as const) {
        const page = await web.get(authorizePath(registered.client_id, challenge, extra));
        expect(page.status).toBe(400);
        expect(page.location).toBeNull();
        expect(page.text).toContain(words);
      }
    }
    expect(await t.deps.db.oauthCodes.countDocuments({ clientId: registered.client_id })).toBe(0);
  });

  it('sends errors back to the client once the person has seen its name and answered', async () => {
    const user = await buildUser(t.deps);
    const { client_id } = await register();
    const { challenge } = pkce();
    const web = new WebClient(server);
    await web.signIn(user.email, user.password);
    const path = authorizePath(client_id, challenge);
    expect((await web.get(path)).status).toBe(200);
    const fields = Object.fromEntries(new URL(path, base).searchParams);
    const tampered = await web.post('/oauth/authorize', {
      ...fields,
      resource: 'https://elsewhere.example/mcp',
      workspaceId: user.workspaceId,
      decision: 'approve',
    });
    expect(tampered.status).toBe(303);
    const target = new URL(tampered.location!);
    expect(`${target.origin}${target.pathname}`).toBe(REDIRECT);
    expect(target.searchParams.get('error')).toBe('invalid_target');
    expect(target.searchParams.get('state')).toBe('st-1');

    const denied = await consent(user, authorizePath(client_id, challenge), 'deny');
    expect(denied.get('error')).toBe('access_denied');
    expect(await t.deps.db.oauthCodes.countDocuments({ clientId: client_id })).toBe(0);
  });

  it("sends a signed-out person to sign in first, and refuses another person's workspace", async () => {
    const user = await buildUser(t.deps);
    const stranger = await buildUser(t.deps);
    const { client_id } = await register();
    const path = authorizePath(client_id, pkce().challenge);
    const web = new WebClient(server);
    const signedOut = await web.get(path);
    expect(signedOut.status).toBe(303);
    expect(signedOut.location).toBe(`/signin?next=${encodeURIComponent(path)}`);

    await web.signIn(user.email, user.password);
    await web.get(path);
    const fields = Object.fromEntries(new URL(path, base).searchParams);
    const foreign = await web.post('/oauth/authorize', {
      ...fields,
      workspaceId: stranger.workspaceId,
      decision: 'approve',
    });
    expect(foreign.status).toBe(404);
    const forged = await web.post(
      '/oauth/authorize',
      { ...fields, workspaceId: user.workspaceId, decision: 'approve' },
      {
        csrf: false,
      },
    );
    expect(forged.status).toBe(403);
    expect(await t.deps.db.oauthCodes.countDocuments({ clientId: client_id })).toBe(0);
  });
});
