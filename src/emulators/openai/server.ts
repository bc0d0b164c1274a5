import type { IncomingMessage } from 'node:http';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { listenEmulator } from '../shared/listen.js';
import { registerApi } from './api.js';
import { registerControl } from './control.js';
import { openAiError } from './errors.js';
import { OpenAiEmulatorControl } from './state.js';

export { OpenAiEmulatorControl } from './state.js';
export type { Fault } from './faults.js';

export interface OpenAiEmulatorOptions {
  port?: number;
  host?: string;
  /** Require exactly this key; by default any non-empty Bearer key is accepted. */
  apiKey?: string;
  latencyMs?: { chat?: number; images?: number };
}

export interface RunningOpenAiEmulator {
  url: string;
  /** What OPENAI_BASE_URL is set to: `${url}/v1`. */
  baseUrl: string;
  control: OpenAiEmulatorControl;
  stop(): Promise<void>;
}

/**
 * Starts the local OpenAI emulator: chat completions with structured output and image generation,
 * with OpenAI's bodies, statuses and headers, plus a control API for latency and injected failures.
 */
export async function startOpenAiEmulator(options: OpenAiEmulatorOptions = {}): Promise<RunningOpenAiEmulator> {
  const control = new OpenAiEmulatorControl();
  control.setLatency({ chatMs: options.latencyMs?.chat ?? 0, imagesMs: options.latencyMs?.images ?? 0 });
  let stopping = false;
  // A "timeout" fault holds the request open until the client gives up or the emulator stops.
  const hang = (ctx: Context) =>
    new Promise<void>((resolve) => {
      ctx.respond = false;
      if (stopping) return resolve();
      ctx.req.socket.once('close', () => resolve());
    });
  const router = new Router();
  registerApi(router, control, hang);
  registerControl(router, control);

  const app = new Koa();
  app.use(async (ctx, next) => {
    const isApi = ctx.path.startsWith('/v1/');
    if (isApi && !authorized(ctx, options.apiKey)) return;
    if (ctx.method !== 'GET' && ctx.method !== 'DELETE') {
      try {
        const text = await readBody(ctx.req);
        (ctx.state as { body: unknown }).body = text ? JSON.parse(text) : {};
      } catch {
        return openAiError(ctx, 400, {
          message:
            "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
          type: 'invalid_request_error',
        });
      }
    }
    await next();
    if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false) {
      openAiError(ctx, 404, { message: `Invalid URL (${ctx.method} ${ctx.path})`, type: 'invalid_request_error' });
    }
  });
  app.use(router.routes());

  const server = await listenEmulator(app, options);
  const { url } = server;
  return {
    url,
    baseUrl: `${url}/v1`,
    control,
    async stop() {
      stopping = true;
      await server.stop();
    },
  };
}

function authorized(ctx: Context, required: string | undefined): boolean {
  const header = ctx.get('authorization');
  const key = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  if (!key) {
    openAiError(ctx, 401, {
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
      type: 'invalid_request_error',
    });
    return false;
  }
  if (required !== undefined && key !== required) {
    openAiError(ctx, 401, {
      message: `Incorrect API key provided: ${key.slice(0, 3)}${'*'.repeat(Math.max(0, key.length - 7))}${key.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
    return false;
  }
  return true;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 4 * 1024 * 1024) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
