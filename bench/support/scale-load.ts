import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import sharp from 'sharp';
import { BENCH_SETTINGS, type CreatedPost, type Tenant } from './seed.js';
import type { ChatRig } from './scale-chat.js';
import type { Traffic } from './scale-traffic.js';

/** The size of the mixed load of one phase. */
export interface LoadShape {
  seconds: number;
  /** Clients each doing one request after another (with `thinkMs` between). */
  clients: number;
  thinkMs: number;
  /** One scheduled post (on the next account in turn) every this long. */
  scheduleEveryMs: number;
  /** How far ahead a scheduled post falls due: at random between the two. */
  leadMs: [number, number];
  /** One generation job every this long. */
  generationEveryMs: number;
  /** Approve is pressed on every this-many-th draft's card, in Slack and Discord in turn. */
  approveEvery: number;
}

/** What the load created that the report checks afterwards. */
export interface LoadOutcome {
  scheduled: CreatedPost[];
  /** Drafts approved from their card: they publish at once. */
  approved: CreatedPost[];
  drafts: string[];
  generationJobs: string[];
}

/**
 * Drives the mixed load through `proxyUrl` for `shape.seconds`: REST reads and drafts, MCP tool calls
 * (the SDK's client over HTTP), uploads, scheduled posts falling due, generation jobs now and then, and
 * Approve pressed on some drafts' cards in Slack and Discord.
 */
export async function driveLoad(proxyUrl: string, tenant: Tenant, shape: LoadShape, traffic: Traffic, chat: ChatRig) {
  const outcome: LoadOutcome = { scheduled: [], approved: [], drafts: [], generationJobs: [] };
  const approvals: Promise<void>[] = [];
  const until = Date.now() + shape.seconds * 1000;
  const auth = { authorization: `Bearer ${tenant.apiKey}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const photo = await sharp({ create: { width: 720, height: 1280, channels: 3, background: '#36b' } })
    .jpeg({ quality: 70 })
    .toBuffer();
  const mcp = await connectMcp(proxyUrl, tenant.apiKey, traffic);
  let account = 0;
  const nextPlatform = () => tenant.platforms[account++ % tenant.platforms.length]!;

  // A key per request: a repeat after a proxy 5xx (the first may have been done) does nothing twice.
  const createPost = async (route: string, body: Record<string, unknown>) => {
    const answer = await traffic.fetch(route, `${proxyUrl}/public/v1/posts`, {
      method: 'POST',
      headers: { ...json, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ mediaIds: [tenant.mediaId], settings: BENCH_SETTINGS, ...body }),
    });
    if (answer.status !== 201) return undefined;
    const created = (await answer.json()) as { results: { post?: { root: { id: string } } }[] };
    return created.results[0]?.post?.root.id;
  };

  const actions: [weight: number, run: () => Promise<void>][] = [
    [4, () => read('GET /public/v1/posts', '/public/v1/posts')],
    [2, () => read('GET /public/v1/media', '/public/v1/media')],
    [2, () => read('GET /public/v1/platforms', '/public/v1/platforms')],
    [
      2,
      async () => {
        const platform = nextPlatform();
        const tag = `bench-${randomUUID()}`;
        const id = await createPost('POST /public/v1/posts (draft)', {
          platformIds: [platform.platformId],
          content: `Scale draft ${tag}`,
          mode: 'draft',
        });
        if (!id) return;
        outcome.drafts.push(id);
        const nth = outcome.drafts.length;
        if (nth % shape.approveEvery !== 0) return;
        const where = (nth / shape.approveEvery) % 2 === 0 ? 'slack' : 'discord';
        approvals.push(
          chat.approve(proxyUrl, traffic, id, where).then((sent) => {
            if (sent) outcome.approved.push({ ...platform, scheduledFor: new Date(), tag, postId: id });
          }),
        );
      },
    ],
    [
      2,
      async () => {
        await mcp.callTool({ name: ['list_posts', 'list_platforms', 'list_media'][account % 3]!, arguments: {} });
      },
    ],
    [
      1,
      async () => {
        const form = new FormData();
        form.set('file', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'scale.jpg');
        const answer = await traffic.fetch('POST /public/v1/media', `${proxyUrl}/public/v1/media`, {
          method: 'POST',
          headers: auth,
          body: form,
        });
        await answer.body?.cancel();
      },
    ],
  ];
  const totalWeight = actions.reduce((sum, [weight]) => sum + weight, 0);
  async function read(route: string, path: string) {
    const answer = await traffic.fetch(route, `${proxyUrl}${path}`, { headers: auth });
    await answer.body?.cancel();
  }

  const client = async () => {
    while (Date.now() < until) {
      let pick = Math.random() * totalWeight;
      const action = actions.find(([weight]) => (pick -= weight) < 0) ?? actions[0]!;
      await action[1]().catch((error: Error) => console.error(`  load: ${error.message}`));
      await sleep(shape.thinkMs);
    }
  };
  const scheduler = async () => {
    while (Date.now() < until) {
      const platform = nextPlatform();
      const [min, max] = shape.leadMs;
      const scheduledFor = new Date(Date.now() + min + Math.random() * (max - min));
      const tag = `bench-${randomUUID()}`;
      const id = await createPost('POST /public/v1/posts (schedule)', {
        platformIds: [platform.platformId],
        content: `Scale post ${tag}`,
        mode: 'schedule',
        scheduledFor: scheduledFor.toISOString(),
      }).catch(() => undefined);
      if (id) outcome.scheduled.push({ ...platform, scheduledFor, tag, postId: id });
      await sleep(shape.scheduleEveryMs);
    }
  };
  const generator = async () => {
    while (Date.now() < until) {
      const answer = await traffic
        .fetch('POST /public/v1/slides/generate', `${proxyUrl}/public/v1/slides/generate`, {
          method: 'POST',
          headers: { ...json, 'idempotency-key': randomUUID() },
          body: JSON.stringify({
            platformIds: [nextPlatform().platformId],
            topic: `quiet mornings ${randomUUID().slice(0, 6)}`,
            content: 'Scale generated post',
            slideCount: 3,
            mode: 'draft',
            settings: BENCH_SETTINGS,
          }),
        })
        .catch(() => undefined);
      if (answer?.status === 202 || answer?.status === 201)
        outcome.generationJobs.push(((await answer.json()) as { jobId: string }).jobId);
      else if (answer) console.error(`  load: generate answered ${answer.status}: ${await answer.text()}`);
      await sleep(shape.generationEveryMs);
    }
  };
  await Promise.all([...Array.from({ length: shape.clients }, client), scheduler(), generator()]);
  await Promise.all(approvals);
  await mcp.close();
  return outcome;
}

/**
 * The MCP SDK's client over Streamable HTTP through the proxy. Its POSTs go through `traffic` (recorded
 * under the JSON-RPC method, repeated on a proxy 5xx); the server is stateless, so any process answers.
 */
async function connectMcp(proxyUrl: string, apiKey: string, traffic: Traffic): Promise<Client> {
  const client = new Client({ name: 'postdeck-bench-scale', version: '1.0.0' });
  const recorded = (url: string | URL, init?: RequestInit) => {
    if ((init?.method ?? 'GET') !== 'POST') return fetch(url, init);
    const body = typeof init?.body === 'string' ? init.body : '{}';
    const method = (JSON.parse(body) as { method?: string }).method ?? 'batch';
    return traffic.fetch(`MCP ${method}`, url, init);
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${proxyUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      fetch: recorded,
    }),
  );
  return client;
}
