import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAccountSnapshot } from '../../src/core/insights/account-snapshot.js';
import { markUnavailable, recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { buildPost, call, detailPaths, type Tenant } from '../support/posts.js';
import { compositeCarousel, counts, publishPost } from './support.js';

// The four read operations over real HTTP and the real MCP client, on data recorded by the core functions.
const { t, server } = await useTestServer();
const HOUR = 3_600_000;
const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'postdeck-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  clients.push(client);
  await client.listTools(); // the client checks structured results against the schemas it listed
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function errorCode(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string } }).error.code;
}

/** Records a snapshot `hours` after the post was published. */
async function snapshot(post: PostDoc, hours: number, views: number, likes = 0, comments = 0, shares = 0) {
  const record = await t.deps.db.postInsights.findOne({ _id: post._id });
  const takenAt = new Date(record!.publishedAt.getTime() + hours * HOUR);
  await recordPostSnapshot(t.deps, post._id, counts(views, likes, comments, shares), takenAt);
}

/**
 * Workspace A: a ranked hook used twice (written in two spellings), a ranked hook used once, a young
 * post with a hook, a post without one, an unavailable post; an account with totals. Workspace B: its
 * own post, hook and account.
 */
let a: Tenant;
let b: Tenant;
let accountA: PlatformDoc;
let secondA: PlatformDoc;
let accountB: PlatformDoc;
const posts: Record<string, PostDoc> = {};
beforeAll(async () => {
  a = await buildTenant(t.deps);
  b = await buildTenant(t.deps);
  accountA = await buildPlatform(t.deps, a.workspaceId);
  secondA = await buildPlatform(t.deps, a.workspaceId);
  accountB = await buildPlatform(t.deps, b.workspaceId);
  const sleep = await compositeCarousel(server, a.apiKey, 'Three sleep myths', 'anton');
  const sleepAgain = await compositeCarousel(server, a.apiKey, '  three SLEEP   myths ', 'poppins');
  const coffee = await compositeCarousel(server, a.apiKey, 'Coffee after 2pm?');
  const young = await compositeCarousel(server, a.apiKey, 'Brand new hook');
  const theirs = await compositeCarousel(server, b.apiKey, 'Their secret hook');
  posts.sleep = await publishPost(t.deps, a, accountA._id, { mediaIds: sleep });
  posts.sleepAgain = await publishPost(t.deps, a, accountA._id, { mediaIds: sleepAgain });
  posts.coffee = await publishPost(t.deps, a, secondA._id, { mediaIds: coffee });
  posts.young = await publishPost(t.deps, a, accountA._id, { mediaIds: young });
  posts.plain = await publishPost(t.deps, a, accountA._id);
  posts.gone = await publishPost(t.deps, a, accountA._id);
  posts.theirs = await publishPost(t.deps, b, accountB._id, { mediaIds: theirs });
  await snapshot(posts.sleep, 0.05, 100, 10, 1, 1);
  await snapshot(posts.sleep, 48, 4000, 400, 40, 4);
  await snapshot(posts.sleepAgain, 48, 2000, 500, 0, 0);
  await snapshot(posts.coffee, 48, 2500, 50, 5, 100);
  await snapshot(posts.young, 2, 99_000, 9, 9, 9);
  await snapshot(posts.plain, 48, 500, 250, 0, 0);
  await snapshot(posts.gone, 1, 70, 7, 0, 0);
  await markUnavailable(t.deps, posts.gone._id, 'TikTok no longer returns this post (made private or removed)');
  await snapshot(posts.theirs, 48, 1_000_000);
  await recordAccountSnapshot(
    t.deps,
    accountA._id,
    { followers: 100, following: 5, likes: 900, videos: 6 },
    new Date(Date.now() - 2 * HOUR),
  );
  await recordAccountSnapshot(
    t.deps,
    accountA._id,
    { followers: 120, following: 5, likes: 1200, videos: 7 },
    new Date(Date.now() - HOUR),
  );
  await recordAccountSnapshot(t.deps, accountB._id, { followers: 9, following: 9, likes: 9, videos: 9 }, new Date());
}, 120_000);

describe('GET /public/v1/posts/{id}/metrics and get_post_metrics', () => {
  it('answers the latest counts, the series and the status, over REST and MCP alike', async () => {
    const answer = await call(server, a.apiKey, 'GET', `/posts/${posts.sleep!._id}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      postId: posts.sleep!._id,
      platformId: accountA._id,
      releaseId: posts.sleep!.releaseId,
      status: 'collecting',
      unavailableReason: null,
      metrics: { views: 4000, likes: 400, comments: 40, shares: 4, takenAt: expect.any(String) },
      engagementRate: 0.111,
      viewsAt48h: 4000,
      hook: { text: 'Three sleep myths', textStyleId: 'anton', language: 'en' },
    });
    const series = answer.body.series as { views: number; ageHours: number }[];
    expect(series.map((point) => [point.views, point.ageHours])).toEqual([
      [100, 0.05],
      [4000, 48],
    ]);
    const client = await connect(a.apiKey);
    const result = await tool(client, 'get_post_metrics', { id: posts.sleep!._id });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(answer.body);
  });

  it('says when a post TikTok returns nothing for is unavailable, and keeps its last counts', async () => {
    const answer = await call(server, a.apiKey, 'GET', `/posts/${posts.gone!._id}/metrics`);
    expect(answer.body).toMatchObject({
      status: 'unavailable',
      unavailableReason: 'TikTok no longer returns this post (made private or removed)',
      metrics: { views: 70, likes: 7 },
      nextSnapshotAt: null,
    });
  });

  it('says at once that a post TikTok will not count (not public) is unavailable, with the reason, in REST and MCP', async () => {
    const c = await buildTenant(t.deps);
    const account = await buildPlatform(t.deps, c.workspaceId);
    const hidden = await publishPost(t.deps, c, account._id, {
      releaseId: null,
      privacyLevel: 'SELF_ONLY',
      publishedAgoMs: 0,
    });
    const expected = {
      postId: hidden._id,
      status: 'unavailable',
      unavailableReason: expect.stringMatching(
        /^TikTok counts only public posts, and this one was published as Only me \(SELF_ONLY\)/,
      ),
      metrics: null,
      nextSnapshotAt: null,
    };
    const answer = await call(server, c.apiKey, 'GET', `/posts/${hidden._id}/metrics`);
    expect(answer.body).toMatchObject({ ...expected, series: [] });
    const listed = await call(server, c.apiKey, 'GET', '/analytics/posts');
    expect(listed.body.posts).toEqual([expect.objectContaining(expected)]);
    const client = await connect(c.apiKey);
    const viaTool = await tool(client, 'get_post_metrics', { id: hidden._id });
    expect(viaTool.structuredContent).toEqual(answer.body);
    const listedViaTool = await tool(client, 'list_post_metrics', {});
    expect(listedViaTool.structuredContent).toEqual(listed.body);
  });

  it('never answers a next snapshot in the past: an overdue one reads as the time of asking, in REST and MCP', async () => {
    const d = await buildTenant(t.deps);
    const account = await buildPlatform(t.deps, d.workspaceId);
    // Published two hours ago and never collected (the worker was down): its first snapshot is overdue.
    const overdue = await publishPost(t.deps, d, account._id, { publishedAgoMs: 2 * HOUR });
    const dueAt = (await t.deps.db.postInsights.findOne({ _id: overdue._id }))!.nextDueAt!;
    expect(dueAt.getTime()).toBeLessThan(Date.now() - HOUR);
    const client = await connect(d.apiKey);
    const before = Date.now();
    const reads = [
      (await call(server, d.apiKey, 'GET', `/posts/${overdue._id}/metrics`)).body,
      ((await call(server, d.apiKey, 'GET', '/analytics/posts')).body.posts as Record<string, unknown>[])[0]!,
      (await tool(client, 'get_post_metrics', { id: overdue._id })).structuredContent!,
      ((await tool(client, 'list_post_metrics', {})).structuredContent!.posts as Record<string, unknown>[])[0]!,
    ];
    const after = Date.now();
    for (const read of reads) {
      expect(read).toMatchObject({ postId: overdue._id, status: 'collecting' });
      const next = Date.parse(String(read.nextSnapshotAt));
      expect(next).toBeGreaterThanOrEqual(before);
      expect(next).toBeLessThanOrEqual(after);
    }
    // One not yet due reads as its due time: a few minutes after publishing.
    const fresh = await publishPost(t.deps, d, account._id, { publishedAgoMs: 0 });
    const record = (await t.deps.db.postInsights.findOne({ _id: fresh._id }))!;
    const answer = await call(server, d.apiKey, 'GET', `/posts/${fresh._id}/metrics`);
    expect(answer.body.nextSnapshotAt).toBe(record.nextDueAt!.toISOString());
    expect(record.nextDueAt!.getTime()).toBeGreaterThan(record.publishedAt.getTime());
  });

  it('has null metrics before the first snapshot, and refuses a post that is not published', async () => {
    const c = await buildTenant(t.deps);
    const fresh = await publishPost(t.deps, c, (await buildPlatform(t.deps, c.workspaceId))._id);
    const answer = await call(server, c.apiKey, 'GET', `/posts/${fresh._id}/metrics`);
    expect(answer.body).toMatchObject({
      status: 'collecting',
      metrics: null,
      series: [],
      nextSnapshotAt: expect.any(String),
    });
    const draft = await buildPost(t.deps, a.workspaceId, { platformId: accountA._id });
    const refused = await call(server, a.apiKey, 'GET', `/posts/${draft._id}/metrics`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', message: expect.stringContaining('not PUBLISHED') });
  });

  it("answers not_found for another workspace's post, and invalid_request for a malformed id", async () => {
    const theirs = await call(server, a.apiKey, 'GET', `/posts/${posts.theirs!._id}/metrics`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('not_found');
    const client = await connect(a.apiKey);
    expect(errorCode(await tool(client, 'get_post_metrics', { id: posts.theirs!._id }))).toBe('not_found');
    const bad = await call(server, a.apiKey, 'GET', '/posts/not-a-uuid/metrics');
    expect(bad.status).toBe(400);
    expect(detailPaths(bad.body)).toEqual([['params', 'id']]);
  });
});

describe('GET /public/v1/analytics/posts and list_post_metrics', () => {
  it("lists the workspace's published posts highest first by the chosen count, filtered by account", async () => {
    const byViews = await call(server, a.apiKey, 'GET', '/analytics/posts');
    expect(byViews.status).toBe(200);
    const ids = (body: Record<string, unknown>) => (body.posts as { postId: string }[]).map((row) => row.postId);
    expect(ids(byViews.body)).toEqual([
      posts.young!._id,
      posts.sleep!._id,
      posts.coffee!._id,
      posts.sleepAgain!._id,
      posts.plain!._id,
      posts.gone!._id,
    ]);
    const byShares = await call(server, a.apiKey, 'GET', '/analytics/posts?sortBy=shares&limit=2');
    expect(ids(byShares.body)).toEqual([posts.coffee!._id, posts.young!._id]);
    const byRate = await call(server, a.apiKey, 'GET', '/analytics/posts?sortBy=engagement_rate&limit=1');
    expect(ids(byRate.body)).toEqual([posts.plain!._id]);
    const second = await call(server, a.apiKey, 'GET', `/analytics/posts?platformId=${secondA._id}`);
    expect(ids(second.body)).toEqual([posts.coffee!._id]);
    const client = await connect(a.apiKey);
    const result = await tool(client, 'list_post_metrics', { sortBy: 'likes', limit: 3 });
    const viaMcp = result.structuredContent as { posts: { postId: string }[] };
    expect(viaMcp.posts.map((row) => row.postId)).toEqual([posts.sleepAgain!._id, posts.sleep!._id, posts.plain!._id]);
  });

  it('pages with the cursor it hands out, never repeating or skipping a row', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(
        server,
        a.apiKey,
        'GET',
        `/analytics/posts?sortBy=likes&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...(page.body.posts as { postId: string }[]).map((row) => row.postId));
      cursor = page.body.nextCursor as string | undefined;
    } while (cursor);
    const all = await call(server, a.apiKey, 'GET', '/analytics/posts?sortBy=likes&limit=100');
    expect(seen).toEqual((all.body.posts as { postId: string }[]).map((row) => row.postId));
    expect(new Set(seen).size).toBeGreaterThanOrEqual(6);
  });

  it('refuses bad parameters with invalid_request naming them, and another workspace account as not_found', async () => {
    const sort = await call(server, a.apiKey, 'GET', '/analytics/posts?sortBy=loudness');
    expect(sort.status).toBe(400);
    expect(sort.body.code).toBe('invalid_request');
    expect(detailPaths(sort.body)).toEqual([['query', 'sortBy']]);
    const limit = await call(server, a.apiKey, 'GET', '/analytics/posts?limit=0');
    expect(detailPaths(limit.body)).toEqual([['query', 'limit']]);
    const cursor = await call(server, a.apiKey, 'GET', '/analytics/posts?cursor=nonsense');
    expect(detailPaths(cursor.body)).toEqual([['query', 'cursor']]);
    const range = await call(
      server,
      a.apiKey,
      'GET',
      '/analytics/posts?startDate=2026-01-01T00:00:00Z&endDate=2026-06-01T00:00:00Z',
    );
    expect(range.status).toBe(400);
    expect(detailPaths(range.body)).toEqual([['query', 'endDate']]);
    const theirs = await call(server, a.apiKey, 'GET', `/analytics/posts?platformId=${accountB._id}`);
    expect(theirs.status).toBe(404);
    const client = await connect(a.apiKey);
    expect(errorCode(await tool(client, 'list_post_metrics', { sortBy: 'loudness' }))).toBe('invalid_request');
  });
});

describe('GET /public/v1/analytics/hooks and list_top_hooks', () => {
  it('ranks hooks by the median of their posts’ views at 48 hours, young posts pending, others’ hooks absent', async () => {
    const answer = await call(server, a.apiKey, 'GET', '/analytics/hooks');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ rankingAgeHours: 48, pendingPosts: 1 });
    expect(answer.body.hooks).toEqual([
      {
        text: 'Three sleep myths',
        language: 'en',
        posts: 2,
        medianViewsAt48h: 3000,
        bestViewsAt48h: 4000,
        textStyles: [
          { textStyleId: 'anton', posts: 1 },
          { textStyleId: 'poppins', posts: 1 },
        ],
        postIds: [posts.sleep!._id, posts.sleepAgain!._id],
      },
      expect.objectContaining({ text: 'Coffee after 2pm?', posts: 1, medianViewsAt48h: 2500 }),
    ]);
    expect(answer.text).not.toContain('Their secret hook');
    expect(answer.text).not.toContain('Brand new hook');
    const limited = await call(server, a.apiKey, 'GET', `/analytics/hooks?limit=1&platformId=${secondA._id}`);
    expect((limited.body.hooks as { text: string }[]).map((hook) => hook.text)).toEqual(['Coffee after 2pm?']);
    const client = await connect(a.apiKey);
    const result = await tool(client, 'list_top_hooks', {});
    expect(result.structuredContent).toEqual(answer.body);
  });

  it('refuses a bad limit and another workspace account', async () => {
    const bad = await call(server, a.apiKey, 'GET', '/analytics/hooks?limit=500');
    expect(bad.status).toBe(400);
    expect(detailPaths(bad.body)).toEqual([['query', 'limit']]);
    const theirs = await call(server, a.apiKey, 'GET', `/analytics/hooks?platformId=${accountB._id}`);
    expect(theirs.body.code).toBe('not_found');
  });
});

describe('GET /public/v1/analytics/accounts/{id} and get_account_metrics', () => {
  it("answers the account's totals over time and its newest", async () => {
    const answer = await call(server, a.apiKey, 'GET', `/analytics/accounts/${accountA._id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      platformId: accountA._id,
      latest: { followers: 120, following: 5, likes: 1200, videos: 7 },
    });
    expect((answer.body.series as { followers: number }[]).map((point) => point.followers)).toEqual([100, 120]);
    const empty = await call(server, a.apiKey, 'GET', `/analytics/accounts/${secondA._id}`);
    expect(empty.body).toEqual({ platformId: secondA._id, latest: null, series: [] });
    const client = await connect(a.apiKey);
    expect((await tool(client, 'get_account_metrics', { id: accountA._id })).structuredContent).toEqual(answer.body);
  });

  it("answers not_found for another workspace's account and invalid_request for a bad range", async () => {
    const theirs = await call(server, a.apiKey, 'GET', `/analytics/accounts/${accountB._id}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('not_found');
    const client = await connect(a.apiKey);
    expect(errorCode(await tool(client, 'get_account_metrics', { id: accountB._id }))).toBe('not_found');
    const range = await call(
      server,
      a.apiKey,
      'GET',
      `/analytics/accounts/${accountA._id}?startDate=2026-02-01T00:00:00Z&endDate=2026-01-01T00:00:00Z`,
    );
    expect(range.status).toBe(400);
    expect(detailPaths(range.body)).toEqual([['query', 'endDate']]);
  });
});

describe('authentication', () => {
  it('answers missing_api_key and invalid_api_key on every new endpoint', async () => {
    const paths = [
      `/posts/${posts.sleep!._id}/metrics`,
      '/analytics/posts',
      '/analytics/hooks',
      `/analytics/accounts/${accountA._id}`,
    ];
    for (const path of paths) {
      const missing = await call(server, undefined, 'GET', path);
      expect([missing.status, missing.body.code], path).toEqual([401, 'missing_api_key']);
      const invalid = await call(server, `service_sk_${'z'.repeat(43)}`, 'GET', path);
      expect([invalid.status, invalid.body.code], path).toEqual([401, 'invalid_api_key']);
    }
  });
});
