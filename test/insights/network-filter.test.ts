import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPostSnapshot } from '../../src/core/insights/record-snapshot.js';
import type { PlatformDoc } from '../../src/core/platforms/documents.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { buildPlatform, buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { call, detailPaths, type Tenant } from '../support/posts.js';
import { compositeCarousel, counts, publishPost } from './support.js';

// The analytics reads by network (`provider`): posts of one network, and hooks ranked within a network, since
// TikTok's and Instagram's views are not one measure.
const { t, server } = await useTestServer();
const HOUR = 3_600_000;
let client: Client | undefined;
afterAll(async () => {
  await client?.close();
});

let a: Tenant;
let b: Tenant;
let tiktok: PlatformDoc;
let instagram: PlatformDoc;
let theirInstagram: PlatformDoc;
const posts: Record<string, PostDoc> = {};

async function rankedAt48h(post: PostDoc, views: number): Promise<void> {
  const record = await t.deps.db.postInsights.findOne({ _id: post._id });
  await recordPostSnapshot(t.deps, post._id, counts(views), new Date(record!.publishedAt.getTime() + 48 * HOUR));
}

beforeAll(async () => {
  a = await buildTenant(t.deps);
  b = await buildTenant(t.deps);
  tiktok = await buildPlatform(t.deps, a.workspaceId);
  instagram = await buildPlatform(t.deps, a.workspaceId, { provider: 'instagram', capabilities: ['photo'] });
  theirInstagram = await buildPlatform(t.deps, b.workspaceId, { provider: 'instagram' });
  // The same hook on both networks, and one more hook on TikTok only.
  const onTikTok = await compositeCarousel(server, a.apiKey, 'Three sleep myths');
  const onInstagram = await compositeCarousel(server, a.apiKey, 'Three sleep myths');
  const other = await compositeCarousel(server, a.apiKey, 'Coffee after 2pm?');
  posts.tiktok = await publishPost(t.deps, a, tiktok._id, { mediaIds: onTikTok });
  posts.instagram = await publishPost(t.deps, a, instagram._id, { mediaIds: onInstagram });
  posts.other = await publishPost(t.deps, a, tiktok._id, { mediaIds: other });
  posts.theirs = await publishPost(t.deps, b, theirInstagram._id);
  await rankedAt48h(posts.tiktok, 9000);
  await rankedAt48h(posts.instagram, 300);
  await rankedAt48h(posts.other, 4000);
  await rankedAt48h(posts.theirs, 50);
});

function idsOf(body: Record<string, unknown>): string[] {
  return (body.posts as { postId: string }[]).map((post) => post.postId).sort();
}

describe('analytics by network', () => {
  it('lists the posts of one network with ?provider=, alone or with an account of it', async () => {
    const all = await call(server, a.apiKey, 'GET', '/analytics/posts');
    expect(idsOf(all.body)).toEqual([posts.tiktok!._id, posts.instagram!._id, posts.other!._id].sort());
    const onInstagram = await call(server, a.apiKey, 'GET', '/analytics/posts?provider=instagram');
    expect(onInstagram.status).toBe(200);
    expect(idsOf(onInstagram.body)).toEqual([posts.instagram!._id]);
    const onTikTok = await call(server, a.apiKey, 'GET', '/analytics/posts?provider=tiktok');
    expect(idsOf(onTikTok.body)).toEqual([posts.tiktok!._id, posts.other!._id].sort());
    const mismatched = await call(
      server,
      a.apiKey,
      'GET',
      `/analytics/posts?provider=tiktok&platformId=${instagram._id}`,
    );
    expect(idsOf(mismatched.body)).toEqual([]);
  });

  it('ranks a hook used on both networks once per network, and one network with ?provider=', async () => {
    const all = await call(server, a.apiKey, 'GET', '/analytics/hooks');
    expect(all.status).toBe(200);
    const hooks = all.body.hooks as { text: string; posts: number; medianViewsAt48h: number; postIds: string[] }[];
    expect(hooks.map((hook) => [hook.text, hook.posts, hook.medianViewsAt48h, hook.postIds])).toEqual([
      ['Three sleep myths', 1, 9000, [posts.tiktok!._id]],
      ['Coffee after 2pm?', 1, 4000, [posts.other!._id]],
      ['Three sleep myths', 1, 300, [posts.instagram!._id]],
    ]);
    const onInstagram = await call(server, a.apiKey, 'GET', '/analytics/hooks?provider=instagram');
    expect((onInstagram.body.hooks as { postIds: string[] }[]).map((hook) => hook.postIds)).toEqual([
      [posts.instagram!._id],
    ]);

    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${a.apiKey}` } },
    });
    client = new Client({ name: 'postdeck-test', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools();
    const result = (await client.callTool({
      name: 'list_top_hooks',
      arguments: { provider: 'instagram' },
    })) as CallToolResult;
    expect(result.structuredContent).toEqual(onInstagram.body);
  });

  it('refuses an unknown network, answers both auth errors, and not_found for another workspace account', async () => {
    for (const path of ['/analytics/posts', '/analytics/hooks']) {
      const bad = await call(server, a.apiKey, 'GET', `${path}?provider=youtube`);
      expect([bad.status, bad.body.code], path).toEqual([400, 'invalid_request']);
      expect(detailPaths(bad.body), path).toEqual([['query', 'provider']]);
      const missing = await call(server, undefined, 'GET', `${path}?provider=instagram`);
      expect([missing.status, missing.body.code], path).toEqual([401, 'missing_api_key']);
      const invalid = await call(server, `service_sk_${'z'.repeat(43)}`, 'GET', `${path}?provider=instagram`);
      expect([invalid.status, invalid.body.code], path).toEqual([401, 'invalid_api_key']);
      const theirs = await call(server, a.apiKey, 'GET', `${path}?provider=instagram&platformId=${theirInstagram._id}`);
      expect([theirs.status, theirs.body.code], path).toEqual([404, 'not_found']);
    }
  });
});
