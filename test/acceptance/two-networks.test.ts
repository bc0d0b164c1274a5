import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../src/core/auth/api-keys.js';
import { FIRST_SNAPSHOT_AFTER_MS } from '../../src/core/insights/schedule.js';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { agePlanner, agePosts, emulatorControl } from '../insights/collect-support.js';
import { PUBLIC_SETTINGS, startWorld, waitFor, type PublishingWorld } from '../publishing/support.js';
import { emulatorAiConfig } from '../support/ai.js';
import { buildUser, type TestUser } from '../support/identity.js';
import { answerInstagramConsent, startInstagramFixture, type InstagramFixture } from '../support/instagram.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call } from '../support/posts.js';
import { answerConsent } from '../support/tiktok.js';
import { WebClient } from '../support/web.js';

// Issue 33's whole loop on both emulators, as a person and an agent drive it: a TikTok and an Instagram account
// connected through their consent pages, one slideshow generated for both, published by the worker, a 9:16
// carousel at TikTok and a 4:5 one at Instagram (read from what each emulator fetched), numbers set on both
// collected by the worker's own planner, and read over REST and MCP.

const HOUR_MS = 3_600_000;
/** A wait for the worker (publishing, a collection round after the 15 s housekeeping) on a busy machine. */
const ROUND_MS = 300_000;
/** Checks over HTTP, so a wait does not load the machine it waits on. */
const POLL_MS = 500;
const SLIDES = ['Three mornings that changed my week', 'No phone for the first hour', 'One thing on paper, done first'];

type Counts = { views: number; likes: number; comments: number; shares: number };
type Metrics = { metrics: (Counts & { takenAt: string }) | null; series: unknown[]; status: string };
type Root = { id: string; state: string; integrationId: string; releaseId: string | null; errorText: string | null };
type Network = { provider: 'tiktok' | 'instagram'; platformId: string; postId: string; releaseId: string };

let w: PublishingWorld;
let ig: InstagramFixture;
let openai: RunningOpenAiEmulator;
let alice: TestUser;
let apiKey: string;
let mcp: Client;
beforeAll(async () => {
  [openai, ig] = await Promise.all([startOpenAiEmulator(), startInstagramFixture()]);
  // As `npm start` without network credentials: both clients talk to emulators; a production worker runs the
  // recurring housekeeping, so the collection planner runs on its own.
  w = await startWorld(
    { ai: emulatorAiConfig(openai), recurring: true, instagram: { ...ig.config, emulator: true } },
    { emulatorClient: true },
  );
  alice = await buildUser(w.t.deps, { name: 'Alice' });
  await w.t.db.collection('accounts').updateOne({ _id: alice.accountId as never }, { $set: { plan: 'creator' } });
  ({ apiKey } = await mintApiKey(w.t.deps, { ...alice.scope, userId: alice.user.id, name: 'Agent' }));
  mcp = await connectMcpOverHttp(w.server.url, apiKey);
}, 300_000);
afterAll(async () => {
  await mcp?.close();
  await w?.close();
  await ig?.close();
  await openai?.stop();
});

async function tool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
}

/** Signs in and connects one account of `network` through /platforms, the emulator's consent page and the callback. */
async function connectThroughPages(network: 'tiktok' | 'instagram', answer: (url: string) => Promise<URL>) {
  const browser = new WebClient(w.server);
  await browser.signIn(alice.email, alice.password);
  await browser.get('/platforms');
  const started = await browser.post(`/platforms/${network}/connect`, { workspaceId: alice.workspaceId });
  expect(started.status).toBe(303);
  const callback = await answer(started.location!);
  const landed = await browser.get(`/platforms/${network}/callback${callback.search}`);
  expect(landed.location).toBe(`/platforms?ws=${alice.workspaceId}&network=${network}&notice=connected`);
}

async function metricsOf(postId: string): Promise<Metrics> {
  const answer = await call(w.server, apiKey, 'GET', `/posts/${postId}/metrics`);
  expect(answer.status).toBe(200);
  return answer.body as unknown as Metrics;
}

/** Waits until no collection run of these accounts is queued or running. */
function settled(networks: Network[]) {
  const ids = networks.map((n) => n.platformId);
  return waitFor(
    'the collection runs to settle',
    async () => {
      const states = await w.t.deps.db.insightCollectors.find({ _id: { $in: ids } }).toArray();
      return states.length === ids.length && states.every((s) => s.queuedAt === null) ? true : undefined;
    },
    ROUND_MS,
    POLL_MS,
  );
}

/** How many insights reads the Instagram emulator has answered. */
async function instagramInsightsCalls(): Promise<number> {
  const { requests } = (await (await ig.control('GET', '/__control/requests')).json()) as {
    requests: Record<string, number>;
  };
  return Object.entries(requests).reduce((sum, [key, n]) => sum + (key.includes('insights') ? n : 0), 0);
}

/** Moves both posts' time on by `ms` (TikTok's clock and Postdeck's records) and the planner's last run. */
async function age(networks: Network[], ms: number): Promise<void> {
  await settled(networks); // no snapshot is taken while the times move
  await agePosts(
    w.f,
    w.t.deps,
    networks.map((n) => n.postId),
    ms,
  );
  await agePlanner(w.t.deps);
}

describe('TikTok and Instagram, the whole loop', () => {
  it(
    'connects both, generates one slideshow for both, publishes 9:16 and 4:5 carousels, collects and reads the numbers',
    { timeout: 900_000 },
    async () => {
      // 1. Both accounts connected through their consent pages.
      const creator = await w.f.createAccount({ username: 'loop.creator' });
      const gram = await ig.createAccount({ username: 'loop.gram', name: 'Loop Gram' });
      await connectThroughPages('tiktok', (url) => answerConsent(url, { openId: creator.openId }));
      await connectThroughPages('instagram', (url) => answerInstagramConsent(url, gram.id));
      const listed = await call(w.server, apiKey, 'GET', '/platforms');
      const platforms = listed.body.platforms as { id: string; provider: string; analytics: { granted: boolean } }[];
      expect(platforms.map((p) => [p.provider, p.analytics.granted])).toEqual([
        ['tiktok', true],
        ['instagram', true],
      ]);
      const [tiktokId, instagramId] = platforms.map((p) => p.id) as [string, string];

      // 2. One slideshow for both: each image generated once, framed per network, a draft group per platform.
      const accepted = await call(w.server, apiKey, 'POST', '/slides/generate', {
        platformIds: [tiktokId, instagramId],
        slides: SLIDES.map((caption, index) => ({
          index,
          caption,
          imagePrompt: `a calm morning desk, scene ${index}`,
        })),
        content: 'Three mornings #postdeck',
        mode: 'draft',
        settings: PUBLIC_SETTINGS,
      });
      expect(accepted.status).toBe(202);
      const job = await waitFor(
        'the generation job',
        async () => {
          const answer = await call(w.server, apiKey, 'GET', `/slides/generate/${String(accepted.body.jobId)}`);
          return ['DONE', 'FAILED'].includes(answer.body.status as string) ? answer.body : undefined;
        },
        ROUND_MS,
        POLL_MS,
      );
      expect(job).toMatchObject({ status: 'DONE', error: null });
      // A group's id stands for its root post.
      const rootOf = async (id: string) => (await call(w.server, apiKey, 'GET', `/posts/${id}`)).body.root as Root;
      const drafts = await Promise.all((job.postGroupIds as string[]).map(rootOf));
      expect(drafts.map((root) => [root.integrationId, root.state])).toEqual([
        [tiktokId, 'DRAFT'],
        [instagramId, 'DRAFT'],
      ]);

      // 3. Both drafts published through the public API; the worker sends each to its network.
      for (const draft of drafts) {
        const published = await call(w.server, apiKey, 'POST', `/posts/${draft.id}/publish`, { mode: 'now' });
        expect([published.status, (published.body.root as Root).state]).toEqual([200, 'QUEUE']);
      }
      const networks: Network[] = [];
      for (const [i, draft] of drafts.entries()) {
        const root = await waitFor(
          `post ${draft.id} to be published`,
          async () => {
            const root = await rootOf(draft.id);
            return ['PUBLISHED', 'ERROR'].includes(root.state) ? root : undefined;
          },
          ROUND_MS,
          POLL_MS,
        );
        expect({ state: root.state, errorText: root.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
        const provider = i === 0 ? 'tiktok' : 'instagram';
        networks.push({ provider, platformId: root.integrationId, postId: root.id, releaseId: root.releaseId! });
      }
      const [atTikTok, atInstagram] = networks as [Network, Network];

      // 4. What each network stored: a photo carousel of 1080x1920 slides at TikTok, an album of 1080x1350 at Instagram.
      type TikTokPosts = { posts: { kind: string; status: string; postIds: string[]; media: object[] }[] };
      const onTikTok = await emulatorControl<TikTokPosts>(w.f, 'GET', `/posts?openId=${creator.openId}`);
      expect(onTikTok.posts).toHaveLength(1);
      expect(onTikTok.posts[0]).toMatchObject({ kind: 'photo', status: 'PUBLISH_COMPLETE' });
      expect(onTikTok.posts[0]!.postIds).toContain(atTikTok.releaseId);
      expect(onTikTok.posts[0]!.media).toEqual(
        SLIDES.map((): unknown => expect.objectContaining({ format: 'jpeg', width: 1080, height: 1920 })),
      );
      const answer = await ig.control('GET', `/__control/media?accountId=${gram.id}`);
      const onInstagram = (await answer.json()) as { media: { id: string; mediaType: string; children: object[] }[] };
      expect(onInstagram.media).toHaveLength(1);
      expect(onInstagram.media[0]).toMatchObject({ id: atInstagram.releaseId, mediaType: 'CAROUSEL_ALBUM' });
      expect(onInstagram.media[0]!.children).toEqual(
        SLIDES.map((): unknown => ({
          id: expect.any(String),
          mediaType: 'IMAGE',
          item: expect.objectContaining({ kind: 'image', width: 1080, height: 1350 }),
        })),
      );

      // 5. Numbers. Instagram's lag first: its insights answer "not yet" (data: []) at the first slot, so only
      // TikTok's snapshot is stored; then both networks' counts are set and the next hourly slot collects them.
      const setInstagram = (body: object) =>
        ig.control('PUT', `/__control/media/${atInstagram.releaseId}/insights`, body);
      expect((await setInstagram({ unavailable: 'empty' })).status).toBe(200);
      await waitFor(
        'the insight records',
        async () => {
          const ids = networks.map((n) => n.postId);
          return (await w.t.deps.db.postInsights.countDocuments({ _id: { $in: ids } })) === 2 ? true : undefined;
        },
        ROUND_MS,
        POLL_MS,
      );
      await age(networks, FIRST_SNAPSHOT_AFTER_MS);
      await waitFor(
        "TikTok's first snapshot",
        async () => ((await metricsOf(atTikTok.postId)).metrics === null ? undefined : true),
        ROUND_MS,
        POLL_MS,
      );
      await waitFor(
        "Instagram's first insights read",
        async () => ((await instagramInsightsCalls()) > 0 ? true : undefined),
        ROUND_MS,
        POLL_MS,
      );
      await settled(networks);
      expect(await metricsOf(atInstagram.postId)).toMatchObject({ metrics: null, series: [], status: 'collecting' });
      const counts: Record<Network['provider'], Counts> = {
        tiktok: { views: 9000, likes: 900, comments: 90, shares: 45 },
        instagram: { views: 4200, likes: 310, comments: 27, shares: 12 },
      };
      const { views, likes, comments, shares } = counts.tiktok;
      await emulatorControl(w.f, 'PATCH', `/videos/${atTikTok.releaseId}`, {
        viewCount: views,
        likeCount: likes,
        commentCount: comments,
        shareCount: shares,
      });
      expect((await setInstagram({ values: counts.instagram, unavailable: null })).status).toBe(200);
      await age(networks, HOUR_MS);
      const collected = await waitFor(
        'both networks collected at the hourly slot',
        async () => {
          const all = await Promise.all(networks.map((n) => metricsOf(n.postId)));
          return all.every((m, i) => m.metrics?.views === counts[networks[i]!.provider].views) ? all : undefined;
        },
        ROUND_MS,
        POLL_MS,
      );

      // 6. Read over REST and MCP: each post's numbers, and each network's list holding only its own post.
      for (const [i, network] of networks.entries()) {
        const rest = collected[i]!;
        const { takenAt: _takenAt, ...latest } = rest.metrics!;
        expect(latest).toEqual(counts[network.provider]);
        expect(rest).toMatchObject({ postId: network.postId, platformId: network.platformId, status: 'collecting' });
        // Instagram's "not yet" left its first slot empty (no zeros stored); TikTok's has both slots.
        expect(rest.series).toHaveLength(network.provider === 'tiktok' ? 2 : 1);
        expect(await tool('get_post_metrics', { id: network.postId })).toEqual(rest);

        const list = await call(w.server, apiKey, 'GET', `/analytics/posts?provider=${network.provider}`);
        expect(list.status).toBe(200);
        const rows = list.body.posts as { postId: string; metrics: Counts }[];
        expect(rows.map((row) => [row.postId, row.metrics])).toEqual([
          [network.postId, expect.objectContaining(counts[network.provider])],
        ]);
        expect(await tool('list_post_metrics', { provider: network.provider })).toEqual(list.body);
      }
    },
  );
});
