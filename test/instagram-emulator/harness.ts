import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { InstagramEmulatorSettings } from '../../src/emulators/instagram/options.js';
import { startInstagramEmulator, type RunningInstagramEmulator } from '../../src/emulators/instagram/server.js';

export const APP_ID = 'emulator-instagram-app-id';
export const APP_SECRET = 'emulator-instagram-app-secret';
export const REDIRECT = 'http://127.0.0.1:9/instagram/callback';
export const SCOPES = 'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_insights';

/** A real JPEG made with sharp. */
export function jpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .jpeg()
    .toBuffer();
}

/** A loopback server the emulator fetches media from: paths are registered with their bytes; `/stall` never answers. */
export class MediaServer {
  private constructor(
    private readonly server: Server,
    private readonly files: Map<string, Buffer>,
    readonly url: string,
  ) {}

  static async start(): Promise<MediaServer> {
    const files = new Map<string, Buffer>();
    const server = createServer((req, res) => {
      if (req.url === '/stall') return; // holds the request open: the emulator's fetch deadline must end it
      const body = files.get(req.url ?? '');
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new MediaServer(server, files, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  /** Serves `bytes` at `path` and answers its URL. */
  serve(path: string, bytes: Buffer): string {
    this.files.set(path, bytes);
    return `${this.url}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** An emulator and a media server for one test file, with helpers speaking the wire shapes. */
export class Harness {
  private constructor(
    readonly emulator: RunningInstagramEmulator,
    readonly media: MediaServer,
  ) {}

  static async start(settings: InstagramEmulatorSettings = {}): Promise<Harness> {
    const emulator = await startInstagramEmulator({
      redirectUris: [REDIRECT],
      imageProcessingMs: 0,
      videoProcessingMs: 0,
      ...settings,
    });
    return new Harness(emulator, await MediaServer.start());
  }

  async close(): Promise<void> {
    await this.emulator.close();
    await this.media.close();
  }

  /** A control-API call with a JSON body. */
  async control(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.emulator.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async createAccount(fields: Record<string, unknown> = {}): Promise<{ id: string; userId: string }> {
    const response = await this.control('POST', '/__control/accounts', fields);
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; userId: string };
  }

  /** Answers the consent page as a person would: picks the account, presses Allow (or Cancel); the redirect URL. */
  async consent(accountId: string, decision = 'allow', scope = SCOPES, state = 'csrf-1'): Promise<string> {
    const query = new URLSearchParams({
      client_id: APP_ID,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope,
      state,
    });
    const pageAnswer = await fetch(`${this.emulator.url}/oauth/authorize?${query.toString()}`);
    expect(pageAnswer.status).toBe(200);
    expect(await pageAnswer.text()).toContain(`value="${accountId}"`);
    const form = new URLSearchParams(query);
    form.set('account_id', accountId);
    form.set('decision', decision);
    const answer = await fetch(`${this.emulator.url}/oauth/authorize`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(answer.status).toBe(302);
    return answer.headers.get('location') ?? '';
  }

  /** The code exchange at the api.instagram.com path. */
  exchangeCode(code: string, overrides: Record<string, string> = {}): Promise<Response> {
    const form = new URLSearchParams({
      client_id: APP_ID,
      client_secret: APP_SECRET,
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      code,
      ...overrides,
    });
    return fetch(`${this.emulator.url}/oauth/access_token`, { method: 'POST', body: form });
  }

  /** Creates an account, connects it through the consent page and answers its long-lived token. */
  async connect(fields: Record<string, unknown> = {}): Promise<{ id: string; userId: string; token: string }> {
    const account = await this.createAccount(fields);
    const code = new URL(await this.consent(account.id)).searchParams.get('code') ?? '';
    const short = (await (await this.exchangeCode(code)).json()) as { access_token: string };
    const query = new URLSearchParams({
      grant_type: 'ig_exchange_token',
      client_secret: APP_SECRET,
      access_token: short.access_token,
    });
    const long = (await (await fetch(`${this.emulator.url}/access_token?${query.toString()}`)).json()) as {
      access_token: string;
    };
    return { ...account, token: long.access_token };
  }

  /** A Graph call with its parameters in the query string and `access_token`, as Postiz sends them. */
  graph(method: string, path: string, token: string, params: Record<string, string> = {}): Promise<Response> {
    const query = new URLSearchParams({ ...params, access_token: token });
    return fetch(`${this.emulator.url}/v25.0${path}?${query.toString()}`, { method });
  }

  /** Creates a container and answers the response. */
  create(userId: string, token: string, params: Record<string, string>): Promise<Response> {
    return this.graph('POST', `/${userId}/media`, token, params);
  }

  /** Creates a container that must succeed, and answers its id. */
  async containerOf(userId: string, token: string, params: Record<string, string>): Promise<string> {
    const response = await this.create(userId, token, params);
    const body = (await response.json()) as { id?: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.id ?? '';
  }

  /** Polls a container until its status_code is not IN_PROGRESS (generous deadline), answering the last read. */
  async settled(containerId: string, token: string): Promise<{ status_code: string; status: string }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const read = await this.graph('GET', `/${containerId}`, token, { fields: 'status_code,status' });
      const body = (await read.json()) as { status_code: string; status: string };
      if (body.status_code !== 'IN_PROGRESS' || Date.now() > deadline) return body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The Graph error object of a response, after checking it is one. */
export async function graphErrorOf(
  response: Response,
): Promise<{ code: number; error_subcode?: number; message: string }> {
  const body = (await response.json()) as {
    error?: { code: number; error_subcode?: number; message: string; type: string; fbtrace_id: string };
  };
  expect(body.error, JSON.stringify(body)).toMatchObject({ type: 'OAuthException', fbtrace_id: expect.any(String) });
  return body.error!;
}
