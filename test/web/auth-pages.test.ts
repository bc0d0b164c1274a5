import { describe, expect, it } from 'vitest';
import { LOGIN_FAILURES_PER_ACCOUNT } from '../../src/core/identity/sign-in.js';
import { startTestServer, useTestServer } from '../support/http.js';
import { testClock } from '../support/identity.js';
import { WebClient, decodeEntities, hiddenValue, setCookieLine } from '../support/web.js';

const clock = testClock();
// Invitation only, as a fresh install is by default: the first person becomes the owner.
const { t, server } = await useTestServer({ clock });
const owner = { name: 'Olive Owner', email: 'olive@example.test', password: 'correct horse battery' };

describe('sign-up', () => {
  it('makes the first person the owner of a new workspace and signs them in with a safe cookie', async () => {
    const browser = new WebClient(server);
    const form = await browser.get('/signup');
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="f-password">Password</label>');

    const created = await browser.post('/signup', { ...owner, next: '/members' });
    expect(created.status).toBe(303);
    expect(created.location).toBe('/members');
    const cookie = setCookieLine(created, 'pd_session')!;
    expect(cookie).toMatch(/^pd_session=pds_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(cookie).not.toContain('Secure');

    const members = await browser.get('/members');
    expect(members.status).toBe(200);
    expect(members.text).toContain('Olive Owner');
    expect(members.text).toMatch(/<td[^>]*>Owner<\/td>/);
  });

  it('shows a later person that sign-up is by invitation, and refuses a forged post', async () => {
    const browser = new WebClient(server);
    const page = await browser.get('/signup');
    expect(page.text).toContain('Sign-up is by invitation');
    expect(page.text).not.toContain('action="/signup"');

    // The sign-in page's token is valid for this browser; the refusal comes from core.
    await browser.get('/signin');
    const refused = await browser.post('/signup', {
      name: 'Eve',
      email: 'eve@example.test',
      password: 'long enough pw',
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('invitation only');
    expect(refused.text).toContain('role="alert"');
  });

  it('re-renders the form with a message beside each wrong field', async () => {
    const browser = new WebClient(server);
    await browser.get('/signin');
    const page = await browser.post('/signup', { name: '', email: 'not-an-email', password: 'short' });
    expect(page.status).toBe(400);
    expect(page.text).toContain('id="f-name-error"');
    expect(page.text).toContain('id="f-email-error"');
    expect(page.text).toMatch(/id="f-password-error">Use at least 10 characters/);
    expect(page.text).toMatch(/<input id="f-password"[^>]*aria-describedby="f-password-hint f-password-error"/);
    expect(page.text).toMatch(/<input id="f-password"[^>]*aria-invalid="true"/);
    expect(page.text).not.toContain('value="short"');
  });
});

describe('sign-in', () => {
  it('sends a signed-out visitor to /signin with the page to come back to', async () => {
    const browser = new WebClient(server);
    for (const path of ['/keys', '/settings', '/members', '/device?code=DECK-BCDF-GHJK']) {
      const page = await browser.get(path);
      expect(page.status).toBe(303);
      expect(page.location).toBe(`/signin?next=${encodeURIComponent(path)}`);
    }
    const signin = await browser.get('/signin?next=%2Fdevice%3Fcode%3DDECK-BCDF-GHJK');
    expect(hiddenValue(signin.text, 'next')).toBe('/device?code=DECK-BCDF-GHJK');
    const done = await browser.post('/signin', {
      email: owner.email,
      password: owner.password,
      next: '/device?code=DECK-BCDF-GHJK',
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/device?code=DECK-BCDF-GHJK');
  });

  it('never sends anyone to another site after signing in', async () => {
    for (const next of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      'javascript:alert(1)',
      '/signout',
    ]) {
      const browser = new WebClient(server);
      await browser.get('/signin');
      const done = await browser.post('/signin', { email: owner.email, password: owner.password, next });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/keys');
    }
  });

  it('says a wrong password is wrong, keeps the email and never echoes the password', async () => {
    const browser = new WebClient(server);
    await browser.get('/signin');
    const page = await browser.post('/signin', { email: owner.email, password: 'wrong password 123', next: '/keys' });
    expect(page.status).toBe(401);
    expect(page.text).toMatch(/role="alert" aria-live="assertive">The email or password is not correct\./);
    expect(decodeEntities(page.text)).toContain(`value="${owner.email}"`);
    expect(page.text).not.toContain('wrong password 123');
    expect(setCookieLine(page, 'pd_session')).toBeUndefined();
  });

  it('tells a throttled person how long to wait', async () => {
    const browser = new WebClient(server);
    await browser.get('/signin');
    let page = await browser.post('/signin', { email: 'target@example.test', password: 'guess 0' });
    for (let i = 1; i <= LOGIN_FAILURES_PER_ACCOUNT; i++) {
      page = await browser.post('/signin', { email: 'target@example.test', password: `guess ${i}` });
    }
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(page.text).toMatch(/Too many failed sign-ins\. Try again in \d+ (minutes|minute|seconds|second)\./);
    clock.advance(16 * 60_000);
  });

  it('signs out: the cookie is cleared and the old session no longer opens pages', async () => {
    const browser = new WebClient(server);
    await browser.signIn(owner.email, owner.password);
    const session = browser.cookies.get('pd_session')!;
    await browser.get('/keys');
    const out = await browser.post('/signout', {});
    expect(out.status).toBe(303);
    expect(out.location).toBe('/signin');
    expect(setCookieLine(out, 'pd_session')).toMatch(/Max-Age=0/);

    const replay = new WebClient(server);
    replay.cookies.set('pd_session', session);
    const page = await replay.get('/keys');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/signin?next=%2Fkeys');
  });
});

describe('secure cookies', () => {
  it('marks cookies Secure when the public URL is https', async () => {
    const https = await startTestServer(t, { app: { publicUrl: 'https://postdeck.example' } });
    try {
      const browser = new WebClient(https);
      const page = await browser.get('/signin');
      expect(setCookieLine(page, 'pd_csrf')).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
      const done = await browser.post('/signin', { email: owner.email, password: owner.password });
      expect(setCookieLine(done, 'pd_session')).toMatch(/; Secure$/);
    } finally {
      await https.stop();
    }
  });
});
