/**
 * An MCP tool call against the same REST call (npm run bench:mcp): the HTTP app in this process on
 * the embedded database, with /mcp served as in production, TikTok emulated here. For a read
 * (list_platforms against GET /platforms) and for create_post (a draft, against POST /posts), the
 * same number of calls one after another through each surface, alternating in rounds so drift hits
 * both alike; the MCP client is the SDK's over Streamable HTTP. Goal: at most 1.5x the REST time.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { createHttpApp } from '../src/http/app.js';
import { startHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/logger.js';
import { createMcpHttpHandler } from '../src/mcp/http.js';
import { startInProcess } from './support/in-process.js';
import { BENCH_SETTINGS } from './support/seed.js';
import { percentile } from './support/util.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 100);
const ROUNDS = 5;
const GOAL = 1.5;

async function main(): Promise<void> {
  const postdeck = await startInProcess('mcp');
  const { deps } = postdeck.core;
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const app = createHttpApp({
    deps,
    logger,
    publicUrl: 'http://127.0.0.1',
    bodyLimitBytes: 1024 * 1024,
    trustProxy: false,
    checkDatabase: () => Promise.resolve(),
    mcp: createMcpHttpHandler({ deps, logger, version: 'bench' }),
  });
  const http = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  try {
    // Every draft reads its creator's info live, which TikTok allows 20 times a minute per account:
    // the drafts take turns over enough accounts to stay under that.
    const { apiKey, platformIds } = await postdeck.workspace(Math.ceil((2 * CALLS + 2) / 18));
    const auth = { authorization: `Bearer ${apiKey}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: auth } }),
    );
    await client.listTools();
    const mediaId = await uploadPhoto(http.url, auth);
    let turn = 0;
    const post = () => ({
      platformIds: [platformIds[turn++ % platformIds.length]],
      mode: 'draft',
      mediaIds: [mediaId],
      content: 'bench',
      settings: BENCH_SETTINGS,
    });

    const rest = {
      read: async () => expectStatus(await fetch(`${http.url}/public/v1/platforms`, { headers: auth }), 200),
      create: async () =>
        expectStatus(
          await fetch(`${http.url}/public/v1/posts`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify(post()),
          }),
          201,
        ),
    };
    const mcp = {
      read: async () => expectTool(await client.callTool({ name: 'list_platforms', arguments: {} })),
      create: async () => expectTool(await client.callTool({ name: 'create_post', arguments: post() })),
    };
    for (const kind of ['read', 'create'] as const) {
      await rest[kind]();
      await mcp[kind]();
    }
    console.log(`${CALLS} calls of each, one after another, in ${ROUNDS} alternating rounds`);
    for (const [label, kind] of [
      ['read (list_platforms / GET /platforms)', 'read'],
      ['create_post (draft) / POST /posts', 'create'],
    ] as const) {
      const times = { rest: [] as number[], mcp: [] as number[] };
      for (let round = 0; round < ROUNDS; round++)
        for (const surface of ['rest', 'mcp'] as const)
          for (let i = 0; i < CALLS / ROUNDS; i++) {
            const started = performance.now();
            await (surface === 'rest' ? rest : mcp)[kind]();
            times[surface].push(performance.now() - started);
          }
      const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
      const ratio = total(times.mcp) / total(times.rest);
      const line = (values: number[]) =>
        `mean ${(total(values) / values.length).toFixed(2)} ms, p50 ${percentile(values, 50).toFixed(2)}, p99 ${percentile(values, 99).toFixed(2)}`;
      console.log(`${label}`);
      console.log(`  REST  ${line(times.rest)}`);
      console.log(`  MCP   ${line(times.mcp)}`);
      console.log(`  MCP / REST ${ratio.toFixed(2)}x (goal ≤ ${GOAL}x): ${ratio <= GOAL ? 'PASS' : 'MISS'}`);
    }
  } finally {
    await client.close();
    await http.stop();
    await postdeck.stop();
  }
}

function expectStatus(response: Response, status: number): Promise<unknown> {
  if (response.status !== status) throw new Error(`REST answered ${response.status}`);
  return response.json();
}

function expectTool(result: unknown): void {
  const answer = result as CallToolResult;
  if (answer.isError) throw new Error(`tool failed: ${JSON.stringify(answer.content)}`);
}

async function uploadPhoto(url: string, auth: Record<string, string>): Promise<string> {
  const jpeg = await sharp({ create: { width: 720, height: 1280, channels: 3, background: '#3b6' } })
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'bench.jpg');
  const answer = await fetch(`${url}/public/v1/media`, { method: 'POST', headers: auth, body: form });
  return ((await expectStatus(answer, 201)) as { id: string }).id;
}

await main();
