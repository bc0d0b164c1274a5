import { describe, expect, it } from 'vitest';
import { startMessage } from '../../src/cli/start-message.js';
import { useTestServer } from '../support/http.js';
import { postJson } from '../support/identity.js';
import { freePort } from '../support/spawn.js';

// What a newcomer meets first: the start message, `/` on a fresh install, and the loopback host names.
const port = await freePort();
const { server } = await useTestServer({ server: { port, app: { publicUrl: `http://localhost:${port}` } } });

const page = (url: string, accept = 'text/html,application/xhtml+xml,*/*;q=0.8') =>
  fetch(url, { redirect: 'manual', headers: { accept } });

describe('the first five minutes', () => {
  it('sends / to /signup on a fresh install, and to /signin once someone owns it', async () => {
    const fresh = await page(`http://localhost:${port}/`);
    expect(fresh.status).toBe(303);
    expect(fresh.headers.get('location')).toBe('/signup');
    const signedUp = await postJson(server, '/auth/signup', {
      email: 'first@example.test',
      password: 'a long enough password',
      name: 'First',
    });
    expect(signedUp.status).toBe(201);
    expect((await page(`http://localhost:${port}/`)).headers.get('location')).toBe('/signin');
  });

  it('moves a browser on 127.0.0.1 to the PUBLIC_URL host, where its cookies live, and leaves API calls be', async () => {
    const moved = await page(`http://127.0.0.1:${port}/signin?next=%2Fplatforms`);
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe(`http://localhost:${port}/signin?next=%2Fplatforms`);
    expect((await page(`http://localhost:${port}/signin`)).status).toBe(200);
    expect((await page(`http://127.0.0.1:${port}/public/v1/platforms`, 'application/json')).status).toBe(401);
    expect((await page(`http://127.0.0.1:${port}/healthz`, '*/*')).status).toBe(200);
    const form = await fetch(`http://127.0.0.1:${port}/auth/device/start`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      body: '{}',
    });
    expect(form.status).toBe(200);
  });

  it('prints PUBLIC_URL and the next step: sign up on a fresh install, else log in', () => {
    const fresh = startMessage({
      publicUrl: 'http://localhost:8080',
      listeningOn: 'http://127.0.0.1:8080',
      freshInstall: true,
      command: 'node bin/postdeck.js',
    });
    expect(fresh).toContain('Postdeck is running at http://localhost:8080 (listening on http://127.0.0.1:8080)');
    expect(fresh).toContain('open http://localhost:8080/signup (the first person to sign up owns this install)');
    expect(fresh).toContain('node bin/postdeck.js login');
    const later = startMessage({
      publicUrl: 'http://localhost:8080',
      listeningOn: 'http://localhost:8080',
      freshInstall: false,
      command: 'node bin/postdeck.js',
    });
    expect(later).not.toContain('/signup');
    expect(later).not.toContain('listening on');
    expect(later).toContain('node bin/postdeck.js login');
  });
});
