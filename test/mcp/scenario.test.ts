import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tunePublishing } from '../../src/core/publishing/settings.js';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { connectAccount, systemScope } from '../platforms/support.js';
import { FAST, PUBLIC_SETTINGS } from '../publishing/support.js';
import { emulatorAiConfig } from '../support/ai.js';
import { openTestDatabase, type TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { makeJpeg, makeMp4 } from '../support/media.js';
import { postdeckMcpTransport } from '../support/mcp.js';
import { freePort } from '../support/spawn.js';
import { startTikTokFixture, type TikTokFixture } from '../support/tiktok.js';

// The typical flow of spec 1.7, done by an agent alone through MCP, until TikTok (emulated) has the post.
let f: TikTokFixture;
let openai: RunningOpenAiEmulator;
let t: TestDatabase;
let server: TestServer;
let dir: string;
let restore: () => void;
const clients: Client[] = [];

beforeAll(async () => {
  restore = tunePublishing(FAST);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  f = await startTikTokFixture({ allowHttpPullUrls: true, verifiedUrlPrefixes: [`${base}/`] });
  openai = await startOpenAiEmulator();
  t = await openTestDatabase({
    tiktok: f.config,
    media: { publicBaseUrl: base, uploadBaseUrl: base },
    ai: emulatorAiConfig(openai),
  });
  server = await startTestServer(t, { port });
  await t.startWorker();
  dir = await mkdtemp(path.join(os.tmpdir(), 'postdeck-mcp-scenario-'));
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.close();
  await server.stop();
  await openai.stop();
  await f.emulator.stop();
  await rm(dir, { recursive: true, force: true });
  restore();
});

async function creator() {
  const tenant = await buildTenant(t.deps);
  const account = await f.createAccount({ username: `agent.${tenant.workspaceId.slice(0, 8)}` });
  const platform = await connectAccount(t.deps, systemScope(tenant), account.openId);
  return { apiKey: tenant.apiKey, platformId: platform._id, openId: account.openId };
}

async function overHttp(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'remote-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function overStdio(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'desktop-agent', version: '1.0.0' });
  await client.connect(postdeckMcpTransport(apiKey, server.url, dir));
  clients.push(client);
  return client;
}

async function emulatorPosts(openId: string): Promise<{ posts: { media: unknown[] }[] }> {
  const answer = await fetch(`${f.emulator.url}/__control/posts?openId=${encodeURIComponent(openId)}`);
  return (await answer.json()) as { posts: { media: unknown[] }[] };
}

/** Calls a tool that must succeed; its structured result. */
async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  return result.structuredContent as T;
}

type Group = { root: { id: string; state: string; releaseUrl: string | null; mediaIds: string[] } };

/**
 * Spec 1.7 step by step: platforms, the posting schema, captions, three photos (two inline, one
 * the way the transport offers besides), captions baked on, a draft, publish, until PUBLISHED.
 */
async function driveTheFlow(client: Client, platformId: string, thirdPhoto: () => Promise<string>): Promise<Group> {
  await client.listTools();
  const { platforms } = await tool<{ platforms: { id: string }[] }>(client, 'list_platforms', {});
  expect(platforms.map((platform) => platform.id)).toContain(platformId);
  const schema = await tool<Record<string, unknown>>(client, 'get_platform_schema', { id: platformId });
  expect(JSON.stringify(schema)).toContain('PUBLIC_TO_EVERYONE');

  const captions = await tool<{ caption: string; slides: { index: number; caption: string }[] }>(
    client,
    'generate_captions',
    { topic: 'a five-minute morning stretch', slideCount: 3 },
  );
  expect(captions.slides.map((slide) => slide.index)).toEqual([0, 1, 2]);

  const photoIds: string[] = [];
  for (const name of ['one.jpg', 'two.jpg']) {
    const content = (await makeJpeg(720, 1280)).toString('base64');
    photoIds.push((await tool<{ id: string }>(client, 'upload_media', { fileName: name, content })).id);
  }
  photoIds.push(await thirdPhoto());

  const baked = await tool<{ slides: { index: number; mediaId: string }[] }>(client, 'composite_slides', {
    slides: captions.slides.map(({ index, caption }) => ({ index, mediaId: photoIds[index], caption })),
  });
  const slideIds = baked.slides.map((slide) => slide.mediaId);
  expect(slideIds).toHaveLength(3);

  const created = await tool<{ results: { status: string; post: Group }[] }>(client, 'create_post', {
    platformIds: [platformId],
    mode: 'draft',
    mediaIds: slideIds,
    content: captions.caption,
    settings: PUBLIC_SETTINGS,
  });
  const draft = created.results[0]!.post.root;
  expect(draft.state).toBe('DRAFT');
  const queued = await tool<Group>(client, 'publish_post', { id: draft.id });
  expect(queued.root.state).toBe('QUEUE');
  for (let i = 0; i < 300; i++) {
    const group = await tool<Group>(client, 'get_post', { id: draft.id });
    if (group.root.state === 'PUBLISHED' || group.root.state === 'ERROR') return group;
    await sleep(100);
  }
  throw new Error('the post was not published within 30 s');
}

describe('the spec 1.7 flow through MCP', () => {
  it('over Streamable HTTP: base64 photos and one sent by curl to an upload URL, published on TikTok', async () => {
    const { apiKey, platformId, openId } = await creator();
    const client = await overHttp(apiKey);
    const group = await driveTheFlow(client, platformId, async () => {
      const link = await tool<{ command: string }>(client, 'create_upload_url', { fileName: 'three.jpg' });
      const file = path.join(dir, 'three.jpg');
      await writeFile(file, await makeJpeg(720, 1280));
      const { stdout } = await promisify(execFile)('sh', ['-c', link.command.replace('FILE', `'${file}'`)]);
      return (JSON.parse(stdout) as { id: string }).id;
    });
    expect(group.root.state).toBe('PUBLISHED');
    expect(group.root.releaseUrl).toMatch(/^https:\/\/www\.tiktok\.com\/@.+\/photo\/\d{19}$/);
    const { posts } = await emulatorPosts(openId);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.media).toHaveLength(3);
  }, 120_000);

  it('over stdio (a spawned postdeck mcp): base64 photos and one read from a local path, published on TikTok', async () => {
    const { apiKey, platformId, openId } = await creator();
    const client = await overStdio(apiKey);
    const group = await driveTheFlow(client, platformId, async () => {
      const file = path.join(dir, 'local.jpg');
      await writeFile(file, await makeJpeg(720, 1280));
      return (await tool<{ id: string }>(client, 'upload_media', { path: file })).id;
    });
    expect(group.root.state).toBe('PUBLISHED');
    expect((await emulatorPosts(openId)).posts).toHaveLength(1);
  }, 120_000);
});

describe('the tools the flow does not use', () => {
  it('folders, moving, listing and deleting media and posts, rescheduling, usage, a video by upload URL', async () => {
    const { apiKey, platformId } = await creator();
    const client = await overHttp(apiKey);
    const folder = await tool<{ id: string; name: string }>(client, 'create_media_folder', { name: 'Drafts' });
    const renamed = await tool<{ name: string }>(client, 'rename_media_folder', { id: folder.id, name: 'Spring' });
    expect(renamed.name).toBe('Spring');
    const { folders } = await tool<{ folders: { id: string }[] }>(client, 'list_media_folders', {});
    expect(folders.map((each) => each.id)).toContain(folder.id);

    const link = await tool<{ uploadUrl: string }>(client, 'create_upload_url', {
      fileName: 'clip.mp4',
      folderId: folder.id,
    });
    const put = await fetch(link.uploadUrl, { method: 'PUT', body: new Uint8Array(makeMp4(20_000)) });
    expect(put.status).toBe(201);
    const video = (await put.json()) as { id: string; mediaType: string; folderId: string };
    expect(video).toMatchObject({ mediaType: 'video', folderId: folder.id });
    const listed = await tool<{ media: { id: string }[] }>(client, 'list_media', { folderId: folder.id });
    expect(listed.media.map((each) => each.id)).toEqual([video.id]);
    const moved = await tool<{ folderId: string | null }>(client, 'move_media', { id: video.id, folderId: null });
    expect(moved.folderId).toBeNull();
    expect((await tool<{ id: string }>(client, 'get_media', { id: video.id })).id).toBe(video.id);
    expect(await tool(client, 'delete_media', { id: video.id })).toEqual({ done: true });
    await tool(client, 'delete_media_folder', { id: folder.id });

    const photo = await tool<{ id: string }>(client, 'upload_media', {
      fileName: 'p.jpg',
      content: (await makeJpeg()).toString('base64'),
    });
    const created = await tool<{ results: { post: Group }[] }>(client, 'create_post', {
      platformIds: [platformId],
      mode: 'draft',
      mediaIds: [photo.id],
      content: 'later',
      settings: PUBLIC_SETTINGS,
    });
    const id = created.results[0]!.post.root.id;
    const later = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const moved2 = await tool<{ root: { scheduledFor: string } }>(client, 'reschedule_post', {
      id,
      scheduledFor: later,
    });
    expect(new Date(moved2.root.scheduledFor).toISOString()).toBe(later);
    const { posts } = await tool<{ posts: { id: string }[] }>(client, 'list_posts', {
      startDate: new Date().toISOString(),
      endDate: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    });
    expect(posts.map((post) => post.id)).toContain(id);
    await tool(client, 'delete_post', { id });
    const gone = (await client.callTool({ name: 'get_post', arguments: { id } })) as CallToolResult;
    expect(gone.isError).toBe(true);

    const usage = await tool<{ captionCredits: { used: number } }>(client, 'get_usage', {});
    expect(usage.captionCredits.used).toBe(0);
  }, 60_000);

  it('refuses a remote URL in upload_media by name', async () => {
    const { apiKey } = await creator();
    const client = await overHttp(apiKey);
    const result = (await client.callTool({
      name: 'upload_media',
      arguments: { fileName: 'x.jpg', url: 'https://example.com/x.jpg' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/url/);
  });
});
