import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http.js';

const { server } = await useTestServer();

const HTML = 'text/html,application/xhtml+xml,*/*;q=0.8';

describe('a path nothing answers', () => {
  it('is an HTML 404 page with a way back for a browser, and the JSON not_found for programs', async () => {
    const page = await server.request('/no-such-page', { headers: { accept: HTML } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('<h1>Page not found</h1>');
    expect(html).toContain('<code>/no-such-page</code>');
    expect(html).toContain('href="/"');

    const program = await server.request('/no-such-page', { headers: { accept: 'application/json' } });
    expect(program.status).toBe(404);
    expect(await program.json()).toMatchObject({ code: 'not_found' });
    const api = await server.request('/public/v1/no-such-thing', { headers: { accept: HTML } });
    expect(await api.json()).toMatchObject({ code: 'not_found' });
  });

  it('escapes the path it names', async () => {
    const page = await server.request('/%3Cscript%3Ealert(1)%3C%2Fscript%3E', { headers: { accept: HTML } });
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain('<script>');
  });
});
