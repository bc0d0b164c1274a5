import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countSpent, monthlyPeriod } from '../../src/core/db/allowance.js';
import { refundPostCap, spendPostCap } from '../../src/core/posts/post-cap.js';
import { systemScope } from '../platforms/support.js';
import type { TestDatabase } from '../support/db.js';
import type { TestServer } from '../support/http.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import {
  buildAttempt,
  buildPost,
  buildVideo,
  call,
  connectedPlatform,
  connectedTenant,
  postBody,
  publishJobs,
  type Tenant,
} from '../support/posts.js';
import type { TikTokFixture } from '../support/tiktok.js';

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let stack: TikTokStack;
beforeAll(async () => {
  // A small free plan, so the monthly post cap is reached in a few requests.
  stack = await startTikTokStack({
    plans: {
      free: { captionCredits: 0, imageCredits: 0, monthlyPosts: 2 },
      big: { captionCredits: 0, imageCredits: 0, monthlyPosts: 100 },
    },
  });
  ({ f, t, server } = stack);
});
afterAll(() => stack.stop());

type Results = { results: { platformId: string; status: string; post?: { root: { id: string } }; error?: unknown }[] };

async function setup() {
  const { tenant, platform } = await connectedTenant(t, f);
  const video = await buildVideo(t.deps, tenant.workspaceId);
  const create = (overrides: Record<string, unknown> = {}) =>
    call(server, tenant.apiKey, 'POST', '/posts', postBody([platform._id], [video._id], overrides));
  return { tenant, platform, video, create };
}

const spent = (tenant: Tenant) => countSpent(t.deps.db.ledger, `posts:${tenant.accountId}`, monthlyPeriod(new Date()));
const rootId = (response: { body: unknown }) => (response.body as Results).results[0]!.post!.root.id;

describe('the monthly post cap', () => {
  it('answers 402 post_limit_reached past the cap, never for drafts, and gives the unit back on delete', async () => {
    const { tenant, create } = await setup();
    const first = await create();
    await create({ mode: 'schedule', scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });
    expect(await spent(tenant)).toBe(2);
    const over = await create();
    expect(over).toMatchObject({
      status: 402,
      body: { code: 'post_limit_reached', message: expect.stringMatching(/monthly post cap.*2 posts/) },
    });
    expect((await create({ mode: 'draft' })).status).toBe(201);
    expect(await t.deps.db.posts.countDocuments({ workspaceId: tenant.workspaceId })).toBe(3);

    // The queued post never reached TikTok, so deleting it frees its unit.
    expect((await call(server, tenant.apiKey, 'DELETE', `/posts/${rootId(first)}`)).status).toBe(204);
    expect(await spent(tenant)).toBe(1);
    expect((await create()).status).toBe(201);
    expect(await spent(tenant)).toBe(2);
  });

  it('refunds on delete only when TikTok certainly got nothing', async () => {
    const { tenant } = await setup();
    const scope = systemScope(tenant);
    const cases = [
      { state: 'QUEUE', phase: 'created_nothing', refunded: true },
      { state: 'QUEUE', phase: null, refunded: true },
      { state: 'PUBLISHED', phase: 'init_answered', refunded: false },
      { state: 'ERROR', phase: 'outcome_unknown', refunded: false },
    ] as const;
    for (const each of cases) {
      const post = await buildPost(t.deps, tenant.workspaceId, { state: each.state, accountId: tenant.accountId });
      const capSpend = await spendPostCap(t.deps, scope, post._id);
      await t.deps.db.posts.updateOne({ _id: post._id }, { $set: { capSpend } });
      if (each.phase) await buildAttempt(t.deps, post, { phase: each.phase });
      expect((await call(server, tenant.apiKey, 'DELETE', `/posts/${post._id}`)).status).toBe(204);
      const slot = await t.deps.db.ledger.findOne({ _id: capSpend.id });
      expect([each, slot === null]).toEqual([each, each.refunded]);
      await refundPostCap(t.deps, { _id: post._id, capSpend });
    }
  });

  it('never frees a slot that another post has taken since (refunding twice is harmless)', async () => {
    const { tenant } = await setup();
    const scope = systemScope(tenant);
    const a = await spendPostCap(t.deps, scope, 'post-a');
    await refundPostCap(t.deps, { _id: 'post-a', capSpend: a });
    await spendPostCap(t.deps, scope, 'post-b');
    await spendPostCap(t.deps, scope, 'post-c');
    expect(await spent(tenant)).toBe(2);
    await refundPostCap(t.deps, { _id: 'post-a', capSpend: a });
    expect(await spent(tenant)).toBe(2);
  });

  it('gives the first platforms the last units and fails the rest with post_limit_reached', async () => {
    const { tenant, platform, video } = await setup();
    const second = await connectedPlatform(t, f, tenant);
    const third = await connectedPlatform(t, f, tenant);
    const response = await call(
      server,
      tenant.apiKey,
      'POST',
      '/posts',
      postBody([platform._id, second._id, third._id], [video._id]),
    );
    expect(response.status).toBe(201);
    expect((response.body as Results).results.map((r) => r.status)).toEqual(['created', 'created', 'failed']);
    expect((response.body as Results).results[2]!.error).toMatchObject({ code: 'post_limit_reached' });
    expect(await t.deps.db.posts.countDocuments({ workspaceId: tenant.workspaceId })).toBe(2);
  });

  it('refuses to publish a draft at the cap (402) and leaves it a draft', async () => {
    const { tenant, create } = await setup();
    const draft = rootId(await create({ mode: 'draft' }));
    await create();
    await create();
    const refused = await call(server, tenant.apiKey, 'POST', `/posts/${draft}/publish`, {});
    expect(refused).toMatchObject({ status: 402, body: { code: 'post_limit_reached' } });
    expect(await t.deps.db.posts.findOne({ _id: draft })).toMatchObject({ state: 'DRAFT', capSpend: null });
    expect(await publishJobs(t, draft)).toEqual([]);
  });
});

describe('POST /public/v1/posts with an Idempotency-Key', () => {
  it('gives twenty concurrent requests with one key one post and twenty identical responses', async () => {
    const { tenant, platform, video } = await setup();
    const body = postBody([platform._id], [video._id]);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.request('/public/v1/posts', {
          method: 'POST',
          apiKey: tenant.apiKey,
          headers: { 'content-type': 'application/json', 'idempotency-key': 'launch-post' },
          body: JSON.stringify(body),
        }),
      ),
    );
    const texts = await Promise.all(responses.map((response) => response.text()));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    expect(new Set(texts).size).toBe(1);
    expect(responses.filter((response) => response.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const posts = await t.deps.db.posts.find({ workspaceId: tenant.workspaceId }).toArray();
    expect(posts).toHaveLength(1);
    expect(JSON.parse(texts[0]!)).toMatchObject({
      results: [{ status: 'created', post: { root: { id: posts[0]!._id } } }],
    });
    expect(await spent(tenant)).toBe(1);
    expect(await publishJobs(t, posts[0]!._id)).toHaveLength(1);
  });

  it('replays a publish with the same key instead of answering not_a_draft', async () => {
    const { tenant, create } = await setup();
    const draft = rootId(await create({ mode: 'draft' }));
    const publish = () =>
      call(server, tenant.apiKey, 'POST', `/posts/${draft}/publish`, {}, { 'idempotency-key': 'publish-once' });
    const first = await publish();
    const again = await publish();
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(await spent(tenant)).toBe(1);
  });
});
