import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_SNAPSHOT_AFTER_MS } from '../../src/core/insights/schedule.js';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { PUBLIC_SETTINGS, startWorld, waitFor, type PublishingWorld } from '../publishing/support.js';
import { emulatorAiConfig } from '../support/ai.js';
import { buildTenant } from '../support/factories.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { call, connectedPlatform, type Tenant } from '../support/posts.js';
import { agePlanner, agePosts, emulatorControl } from './collect-support.js';
import { compositeCarousel } from './support.js';

// The first acceptance line, end to end on the emulators and through the public API as a user
// drives it: carousels published to TikTok, their counts moved on the emulator, collected by the worker's own
// planner and runs, read over REST and MCP, their hooks ranked, and the winner in the next caption's prompt;
// a second workspace doing the same never shows up in the first one's rankings or prompt.

const HOUR_MS = 3_600_000;
/** A collection round waits for the planner (run by housekeeping every 15 s once aged) on a busy machine. */
const ROUND_MS = 300_000;
/** Checks over HTTP, so a wait does not load the machine it waits on. */
const POLL_MS = 500;

interface Counts {
  views: number;
  likes: number;
  comments: number;
  shares: number;
}

/** A carousel a workspace published, and the counts TikTok (the emulator) is set to give it. */
interface Published {
  tenant: Tenant;
  platformId: string;
  hook: string;
  counts: Counts;
  postId: string;
  releaseId: string;
}

let w: PublishingWorld;
let openai: RunningOpenAiEmulator;
const clients: Client[] = [];
beforeAll(async () => {
  openai = await startOpenAiEmulator();
  // A production worker: the recurring housekeeping runs the collection planner on its own.
  w = await startWorld({ ai: emulatorAiConfig(openai), recurring: true });
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await w.close();
  await openai.stop();
});

async function mcp(apiKey: string): Promise<Client> {
  const client = await connectMcpOverHttp(w.server.url, apiKey);
  clients.push(client);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A carousel composited with `hook` on its first slide, posted now through the API; answers its post id. */
async function postCarousel(tenant: Tenant, platformId: string, hook: string): Promise<string> {
  const mediaIds = await compositeCarousel(w.server, tenant.apiKey, hook);
  const created = await call(w.server, tenant.apiKey, 'POST', '/posts', {
    platformIds: [platformId],
    content: `${hook} #postdeck`,
    mode: 'now',
    mediaIds,
    settings: PUBLIC_SETTINGS,
  });
  expect(created.status).toBe(201);
  const [result] = created.body.results as { status: string; post: { root: { id: string } } }[];
  expect(result!.status).toBe('created');
  return result!.post.root.id;
}

/** The post once GET /posts/{id} shows it PUBLISHED (failing on ERROR): TikTok's post id. */
async function publishedReleaseId(tenant: Tenant, postId: string): Promise<string> {
  const root = await waitFor(
    `post ${postId} to be published`,
    async () => {
      const answer = await call(w.server, tenant.apiKey, 'GET', `/posts/${postId}`);
      const group = answer.body as { root: { state: string; releaseId: string | null; errorText: string | null } };
      return ['PUBLISHED', 'ERROR'].includes(group.root.state) ? group.root : undefined;
    },
    ROUND_MS,
    POLL_MS,
  );
  expect({ state: root.state, errorText: root.errorText }).toEqual({ state: 'PUBLISHED', errorText: null });
  return root.releaseId!;
}

type Metrics = {
  metrics: (Counts & { takenAt: string }) | null;
  viewsAt48h: number | null;
  series: (Counts & { ageHours: number })[];
} & Record<string, unknown>;

async function metricsOf(post: Published): Promise<Metrics> {
  const answer = await call(w.server, post.tenant.apiKey, 'GET', `/posts/${post.postId}/metrics`);
  expect(answer.status).toBe(200);
  return answer.body as unknown as Metrics;
}

/** Waits until every post's metrics over REST satisfy `done`; answers them, in order. */
function waitForMetrics(what: string, posts: Published[], done: (m: Metrics, post: Published) => boolean) {
  return waitFor(
    what,
    async () => {
      const all = await Promise.all(posts.map(metricsOf));
      return all.every((m, i) => done(m, posts[i]!)) ? all : undefined;
    },
    ROUND_MS,
    POLL_MS,
  );
}

/** Waits until no collection run of these accounts is queued or running, so time can move under none. */
function collectionSettled(platformIds: string[]) {
  return waitFor(
    'the collection runs to settle',
    async () => {
      const states = await w.t.deps.db.insightCollectors.find({ _id: { $in: platformIds } }).toArray();
      return states.length === platformIds.length && states.every((state) => state.queuedAt === null)
        ? true
        : undefined;
    },
    ROUND_MS,
    POLL_MS,
  );
}

/** The user message of the one chat request the OpenAI emulator logged for `topic`, read over its control API. */
async function promptFor(topic: string): Promise<string> {
  const response = await fetch(`${openai.url}/__control/requests`);
  expect(response.status).toBe(200);
  const { requests } = (await response.json()) as { requests: { endpoint: string; prompt: string }[] };
  const prompts = requests.filter((r) => r.endpoint === 'chat' && r.prompt.includes(`Topic: ${topic}\n`));
  expect(prompts).toHaveLength(1);
  return prompts[0]!.prompt;
}

const withoutTakenAt = ({ views, likes, comments, shares }: Counts): Counts => ({ views, likes, comments, shares });

describe('the insights loop on the emulators', () => {
  it(
    'publishes, collects the counts TikTok gives, reads them over REST and MCP, ranks hooks and writes from the winner',
    { timeout: 900_000 },
    async () => {
      // 1. Two workspaces, each with a TikTok account connected through the consent page with every scope.
      const a = w.tenant;
      const b = await buildTenant(w.t.deps);
      const platformA = (await connectedPlatform(w.t, w.f, a))._id;
      const platformB = (await connectedPlatform(w.t, w.f, b))._id;
      for (const [tenant, platformId] of [
        [a, platformA],
        [b, platformB],
      ] as const) {
        const listed = await call(w.server, tenant.apiKey, 'GET', '/platforms');
        const platforms = listed.body.platforms as { id: string; analytics: { granted: boolean } }[];
        expect(platforms.find((platform) => platform.id === platformId)?.analytics.granted).toBe(true);
      }

      // Carousels composited with their hooks, posted through the API and published by the worker to TikTok.
      const plan = [
        { tenant: a, platformId: platformA, hook: 'Three sleep myths', counts: counts(9000, 900, 90, 45) },
        { tenant: a, platformId: platformA, hook: 'Coffee after 2pm?', counts: counts(4000, 120, 12, 8) },
        { tenant: b, platformId: platformB, hook: 'Their secret hook', counts: counts(50_000, 5000, 500, 50) },
      ];
      const postIds: string[] = [];
      for (const entry of plan) postIds.push(await postCarousel(entry.tenant, entry.platformId, entry.hook));
      const posts: Published[] = [];
      for (const [i, entry] of plan.entries()) {
        const postId = postIds[i]!;
        posts.push({ ...entry, postId, releaseId: await publishedReleaseId(entry.tenant, postId) });
      }
      const [winner, runnerUp, theirs] = posts as [Published, Published, Published];

      // The first snapshot comes unasked, a few minutes after publishing: once the published events' runs have
      // noted when it falls due, those minutes go by (post clock, schedule and the planner's last run) and the
      // worker's planner queues it.
      await waitFor('the insight records', async () =>
        (await w.t.deps.db.postInsights.countDocuments({ _id: { $in: postIds } })) === posts.length ? true : undefined,
      );
      await collectionSettled([platformA, platformB]);
      await agePosts(w.f, w.t.deps, postIds, FIRST_SNAPSHOT_AFTER_MS);
      await agePlanner(w.t.deps);
      const first = await waitForMetrics('the first snapshots', posts, (m) => m.metrics !== null);
      for (const [i, m] of first.entries()) {
        expect(m).toMatchObject({ status: 'collecting', viewsAt48h: null, hook: { text: posts[i]!.hook } });
        expect(m.series).toHaveLength(1);
      }

      // 2. TikTok's counts: each post's set on the emulator, one hook clearly ahead, then two days go by on the
      // post clock, the 47th hour's snapshot and the 48th's (the ranking age) each collected by the worker.
      for (const post of posts) {
        const set = await emulatorControl<{ counts: Counts }>(w.f, 'PATCH', `/videos/${post.releaseId}`, {
          viewCount: post.counts.views,
          likeCount: post.counts.likes,
          commentCount: post.counts.comments,
          shareCount: post.counts.shares,
        });
        expect(set.counts).toEqual(tiktokCounts(post.counts));
      }
      await collectionSettled([platformA, platformB]);
      await agePosts(w.f, w.t.deps, postIds, 47 * HOUR_MS);
      await agePlanner(w.t.deps);
      await waitForMetrics(
        'the 47th hour',
        posts,
        (m, post) => m.series.length === 2 && m.metrics?.views === post.counts.views,
      );
      await collectionSettled([platformA, platformB]);
      await agePosts(w.f, w.t.deps, postIds, HOUR_MS);
      await agePlanner(w.t.deps);
      const collected = await waitForMetrics('the 48th hour', posts, (m) => m.series.length === 3);

      // 3. The numbers read over REST are TikTok's, as the emulator answers them now, and so are MCP's.
      const clientA = await mcp(a.apiKey);
      for (const [i, post] of posts.entries()) {
        const m = collected[i]!;
        const onTikTok = await emulatorControl<{ counts: Counts }>(w.f, 'GET', `/videos/${post.releaseId}`);
        expect(onTikTok.counts).toEqual(tiktokCounts(post.counts));
        expect(withoutTakenAt(m.metrics!)).toEqual(post.counts);
        expect(m).toMatchObject({ postId: post.postId, releaseId: post.releaseId, viewsAt48h: post.counts.views });
        expect(m.series.map((point) => point.views).slice(1)).toEqual([post.counts.views, post.counts.views]);
        expect(m.series.map((point) => Math.floor(point.ageHours))).toEqual([0, 47, 48]);
      }
      for (const post of [winner, runnerUp]) {
        const rest = await metricsOf(post);
        expect((await tool(clientA, 'get_post_metrics', { id: post.postId })).structuredContent).toEqual(rest);
      }

      const listed = await call(w.server, a.apiKey, 'GET', '/analytics/posts?sortBy=views');
      expect(listed.status).toBe(200);
      const rows = listed.body.posts as { postId: string; metrics: Counts }[];
      expect(rows.map((row) => [row.postId, row.metrics.views])).toEqual([
        [winner.postId, 9000],
        [runnerUp.postId, 4000],
      ]);
      expect((await tool(clientA, 'list_post_metrics', { sortBy: 'views' })).structuredContent).toEqual(listed.body);

      // The hooks ranked by views at 48 hours: the winner first, the other workspace's hook nowhere.
      const hooks = await call(w.server, a.apiKey, 'GET', '/analytics/hooks');
      expect(hooks.status).toBe(200);
      expect(hooks.body).toMatchObject({ rankingAgeHours: 48, pendingPosts: 0 });
      expect(hooks.body.hooks).toEqual([
        expect.objectContaining({
          text: winner.hook,
          posts: 1,
          medianViewsAt48h: 9000,
          bestViewsAt48h: 9000,
          postIds: [winner.postId],
        }),
        expect.objectContaining({ text: runnerUp.hook, posts: 1, medianViewsAt48h: 4000, postIds: [runnerUp.postId] }),
      ]);
      expect((await tool(clientA, 'list_top_hooks', {})).structuredContent).toEqual(hooks.body);

      // 4. The next caption request learns from them: the winner, with its numbers, reaches the model first.
      const captions = await call(w.server, a.apiKey, 'POST', '/slides/caption', {
        topic: 'whole loop a',
        slideCount: 3,
        useTopHooks: true,
      });
      expect(captions.status).toBe(200);
      expect(captions.body.hookExamples).toEqual({
        enabled: true,
        note: null,
        hooks: [
          { text: winner.hook, language: 'en', medianViewsAt48h: 9000, bestViewsAt48h: 9000, posts: 1 },
          { text: runnerUp.hook, language: 'en', medianViewsAt48h: 4000, bestViewsAt48h: 4000, posts: 1 },
        ],
      });
      const prompt = await promptFor('whole loop a');
      expect(prompt).toContain('<top_hooks>\n');
      const block = prompt.slice(prompt.indexOf('<top_hooks>\n'));
      expect(block.split('\n')).toEqual([
        '<top_hooks>',
        '{"hook":"Three sleep myths","medianViewsAt48h":9000,"posts":1}',
        '{"hook":"Coffee after 2pm?","medianViewsAt48h":4000,"posts":1}',
        '</top_hooks>',
      ]);

      // 5. The other workspace did the same with a hook watched far more: it stays its own.
      expect(prompt).not.toContain(theirs.hook);
      expect(hooks.text).not.toContain(theirs.hook);
      expect(listed.text).not.toContain(theirs.postId);
      const notOurs = await call(w.server, a.apiKey, 'GET', `/posts/${theirs.postId}/metrics`);
      expect([notOurs.status, notOurs.body.code]).toEqual([404, 'not_found']);
      const viaMcp = await tool(clientA, 'get_post_metrics', { id: theirs.postId });
      expect(viaMcp.isError).toBe(true);
      expect(JSON.parse((viaMcp.content[0] as { text: string }).text)).toMatchObject({ error: { code: 'not_found' } });
      const theirCaptions = await call(w.server, b.apiKey, 'POST', '/slides/caption', {
        topic: 'whole loop b',
        slideCount: 3,
        useTopHooks: true,
      });
      expect((theirCaptions.body.hookExamples as { hooks: { text: string }[] }).hooks.map((h) => h.text)).toEqual([
        theirs.hook,
      ]);
      const theirPrompt = await promptFor('whole loop b');
      expect(theirPrompt).toContain('{"hook":"Their secret hook","medianViewsAt48h":50000,"posts":1}');
      for (const ours of [winner.hook, runnerUp.hook]) expect(theirPrompt).not.toContain(ours);
    },
  );
});

function counts(views: number, likes: number, comments: number, shares: number): Counts {
  return { views, likes, comments, shares };
}

/** The same counts under the names TikTok's Video Object gives them. */
function tiktokCounts(c: Counts) {
  return { viewCount: c.views, likeCount: c.likes, commentCount: c.comments, shareCount: c.shares };
}
