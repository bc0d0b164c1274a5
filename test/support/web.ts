import type { TestServer } from './http.js';

/** A response as a test reads it: status, headers, the HTML (whitespace squashed) and the redirect target. */
export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/**
 * A minimal browser for the server-rendered pages: keeps cookies the way a browser would for
 * one origin, never follows redirects by itself, and posts forms with the CSRF token of the
 * last page it loaded (unless told otherwise).
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  lastPage = '';

  constructor(private readonly server: TestServer) {}

  /** GETs a page. */
  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.send(path, { method: 'GET', headers });
  }

  /** POSTs a form; `csrf` defaults to the token on the last page, `false` sends none. */
  async post(
    path: string,
    fields: Record<string, string>,
    options: { csrf?: string | false; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const csrf = options.csrf === undefined ? csrfFrom(this.lastPage) : options.csrf;
    const body = new URLSearchParams(csrf === false ? fields : { _csrf: csrf, ...fields });
    return this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
      body: body.toString(),
    });
  }

  /** GETs `path` and then submits a form to `action` with that page's CSRF token. */
  async submit(path: string, action: string, fields: Record<string, string>): Promise<Page> {
    await this.get(path);
    return this.post(action, fields);
  }

  /** Signs in through the sign-in page; fails the test when that does not redirect. */
  async signIn(email: string, password: string): Promise<void> {
    const page = await this.submit('/signin', '/signin', { email, password, next: '/keys' });
    if (page.status !== 303) throw new Error(`sign-in answered ${page.status}: ${page.text.slice(0, 500)}`);
  }

  private async send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Page> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers = cookie ? { cookie, ...init.headers } : init.headers;
    const response = await this.server.request(path, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) this.store(line);
    const text = squash(await response.text());
    if (response.headers.get('content-type')?.includes('html')) this.lastPage = text;
    return { status: response.status, headers: response.headers, text, location: response.headers.get('location') };
  }

  private store(line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const expired = attributes.some((a) => /^max-age=0$/i.test(a));
    if (expired) this.cookies.delete(name);
    else this.cookies.set(name, pair.slice(eq + 1));
  }
}

/**
 * The markup with runs of whitespace made one space and none around tags or before `>`, so
 * assertions do not depend on how templates are indented.
 */
export function squash(html: string): string {
  return html
    .replace(/\s+/g, ' ')
    .replace(/>\s+/g, '>')
    .replace(/\s+</g, '<')
    .replace(/\s+(\/?>)/g, '$1');
}

/** The value of the hidden CSRF field on a page. */
export function csrfFrom(html: string): string {
  return hiddenValue(html, '_csrf');
}

/** The value of the first input called `name` on a page ('' when there is none). */
export function hiddenValue(html: string, name: string): string {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  return match?.[1] ? decodeEntities(match[1]) : '';
}

/** The Set-Cookie line for `name` in a response, or undefined. */
export function setCookieLine(page: Page, name: string): string | undefined {
  return page.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

/** Undoes the pages' HTML escaping (`&#NN;`) so text can be compared with what was typed. */
export function decodeEntities(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}
