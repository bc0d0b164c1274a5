import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { WebClient, csrfFrom, setCookieLine } from '../support/web.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const { t, server } = await useTestServer();
let user: TestUser;

beforeAll(async () => {
  user = await buildUser(t.deps, { name: 'Sam Secure' });
});

async function signedIn(): Promise<WebClient> {
  const browser = new WebClient(server);
  await browser.signIn(user.email, user.password);
  return browser;
}

describe('security headers', () => {
  it('sends the strict CSP and anti-framing, no-referrer and no-store headers on every page', async () => {
    const browser = await signedIn();
    const anonymous = new WebClient(server);
    const pages = [
      await anonymous.get('/signin'),
      await anonymous.get('/signup'),
      await browser.get('/keys'),
      await browser.get('/settings'),
      await browser.get('/members'),
      await browser.get('/device'),
      await browser.get('/device?code=DECK-BCDF-GHJK'),
      await browser.get(`/keys?ws=${crypto.randomUUID()}`),
    ];
    for (const page of pages) {
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toBe(CSP);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      // No inline script or style the policy would have to allow.
      expect(page.text).not.toMatch(/<script|<style|\sstyle="|\son[a-z]+="/i);
    }
  });

  it('gives a page with a Copy button only the script file of its own origin, never inline script', async () => {
    const browser = await signedIn();
    await browser.get('/members');
    const page = await browser.post('/members/invitations', {
      workspaceId: user.workspaceId,
      role: 'member',
      email: '',
    });
    expect(page.status).toBe(201);
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    expect(page.text).toContain('<script src="/assets/copy.js" defer></script>');
    const rest = page.text.replace('<script src="/assets/copy.js" defer></script>', '');
    expect(rest).not.toMatch(/<script|<style|\sstyle="|\son[a-z]+="/i);

    const script = await fetch(`${server.url}/assets/copy.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(await script.text()).toContain('button[data-copy]');
  });

  it('serves the one stylesheet from its own origin, cacheable', async () => {
    const css = await fetch(`${server.url}/assets/app.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(await css.text()).toContain('.card{');
    const again = await fetch(`${server.url}/assets/app.css`, {
      headers: { 'if-none-match': css.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });
});

describe('CSRF', () => {
  it('sets a SameSite=Strict, HttpOnly seed cookie and puts a token in every form', async () => {
    const browser = new WebClient(server);
    const page = await browser.get('/signin');
    expect(setCookieLine(page, 'pd_csrf')).toMatch(/^pd_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(csrfFrom(page.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('answers 403 to a form post without a token, with a wrong one, or without the seed cookie', async () => {
    const browser = new WebClient(server);
    await browser.get('/signin');
    const fields = { email: user.email, password: user.password };
    for (const csrf of [
      false,
      '',
      'x'.repeat(43),
      csrfFrom(browser.lastPage).replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
    ] as const) {
      const page = await browser.post('/signin', fields, { csrf });
      expect(page.status).toBe(403);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toBe(CSP);
      expect(page.text).toContain('This form could not be verified');
      expect(setCookieLine(page, 'pd_session')).toBeUndefined();
    }
    const token = csrfFrom(browser.lastPage);
    browser.cookies.delete('pd_csrf');
    expect((await browser.post('/signin', fields, { csrf: token })).status).toBe(403);
  });

  it('binds the token to the session: another session’s token is refused', async () => {
    const victim = await signedIn();
    const attacker = await signedIn();
    await attacker.get('/keys');
    await victim.get('/keys');
    // The attacker knows their own token, not the victim's session; a post with it fails.
    const forged = await victim.post('/signout', {}, { csrf: csrfFrom(attacker.lastPage) });
    expect(forged.status).toBe(403);
    // Even with the attacker's seed planted in the victim's browser.
    victim.cookies.set('pd_csrf', attacker.cookies.get('pd_csrf')!);
    expect((await victim.post('/signout', {}, { csrf: csrfFrom(attacker.lastPage) })).status).toBe(403);
    expect((await victim.get('/keys')).status).toBe(200);
  });

  it('refuses posts from another origin even with a valid token', async () => {
    const browser = await signedIn();
    await browser.get('/keys');
    const crossOrigin = await browser.post('/signout', {}, { headers: { origin: 'https://evil.example' } });
    expect(crossOrigin.status).toBe(403);
    await browser.get('/keys');
    const crossSite = await browser.post('/signout', {}, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    await browser.get('/keys');
    const sameOrigin = await browser.post(
      '/signout',
      {},
      { headers: { origin: server.url, 'sec-fetch-site': 'same-origin' } },
    );
    expect(sameOrigin.status).toBe(303);
  });

  it('checks every form: settings, revoke, invite and device posts refuse a missing token', async () => {
    const browser = await signedIn();
    await browser.get('/keys');
    const workspaceId = user.workspaceId;
    const posts: [string, Record<string, string>][] = [
      ['/settings', { workspaceId }],
      [`/keys/${crypto.randomUUID()}/revoke`, { workspaceId }],
      ['/members/invitations', { workspaceId, role: 'member' }],
      [`/members/invitations/${crypto.randomUUID()}/revoke`, { workspaceId }],
      ['/device', { code: 'DECK-BCDF-GHJK', decision: 'deny' }],
      ['/invite', { token: 'pdi_x' }],
      ['/signup', { name: 'X', email: 'x@example.test', password: 'long enough pw' }],
      ['/signout', {}],
    ];
    for (const [path, fields] of posts) {
      const page = await browser.post(path, fields, { csrf: false });
      expect({ path, status: page.status }).toEqual({ path, status: 403 });
    }
  });

  it('takes only url-encoded forms', async () => {
    const browser = await signedIn();
    await browser.get('/keys');
    const json = await browser.post('/signout', {}, { headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
  });
});
