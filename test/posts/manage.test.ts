import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimLease, releaseLease } from '../../src/core/db/leases.js';
import { PostGroupSchema, PostListSchema } from '../../src/core/posts/schema.js';
import { control } from '../platforms/support.js';
import type { TestDatabase } from '../support/db.js';
import { buildTenant } from '../support/factories.js';
import type { TestServer } from '../support/http.js';
import { startTikTokStack, type TikTokStack } from '../support/tiktok-stack.js';
import {
  buildAttempt,
  buildPost,
  buildVideo,
  call,
  connectedTenant,
  DIRECT,
  postBody,
  publishJobs,
  type Tenant,
} from '../support/posts.js';
import { expireCreatorInfo, type TikTokFixture } from '../support/tiktok.js';

let f: TikTokFixture;
let t: TestDatabase;
let server: TestServer;
let stack: TikTokStack;
beforeAll(async () => {
  stack = await startTikTokStack();
  ({ f, t, server } = stack);
});
afterAll(() => stack.stop());

type Post = { id: string; groupId: string; state: string; scheduledFor: string | null } & Record<string, unknown>;
type Group = { root: Post; children: Post[] };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const inFuture = (ms = HOUR) => new Date(Date.now() + ms).toISOString();

/** A connected tenant and a draft created through the API. */
async function withDraft(creator: Record<string, unknown> = {}) {
  const { tenant, platform, openId } = await connectedTenant(t, f, creator);
  const video = await buildVideo(t.deps, tenant.workspaceId);
  const created = await call(
    server,
    tenant.apiKey,
    'POST',
    '/posts',
    postBody([platform._id], [video._id], { mode: 'draft' }),
  );
  expect(created.status).toBe(201);
  const draft = (created.body as { results: { post: Group }[] }).results[0]!.post.root;
  return { tenant, platform, openId, video, draft };
}

function api(tenant: Tenant, method: string, path: string, body?: unknown) {
  return call(server, tenant.apiKey, method, path, body);
}

describe('every post endpoint', () => {
  it('answers missing_api_key and invalid_api_key, and 404 for another workspace or an unknown id', async () => {
    const tenant = await buildTenant(t.deps);
    const other = await buildTenant(t.deps);
    const post = await buildPost(t.deps, tenant.workspaceId);
    const wrongKey = `service_sk_${'C'.repeat(43)}`;
    const endpoints: [string, string, unknown][] = [
      ['GET', '/posts', undefined],
      ['POST', '/posts', postBody([randomUUID()], [randomUUID()])],
      ['GET', `/posts/${post._id}`, undefined],
      ['DELETE', `/posts/${post._id}`, undefined],
      ['PATCH', `/posts/${post._id}/schedule`, { scheduledFor: inFuture() }],
      ['POST', `/posts/${post._id}/publish`, {}],
    ];
    for (const [method, path, body] of endpoints) {
      const missing = await call(server, undefined, method, path, body);
      expect([method, path, missing.status, missing.body.code]).toEqual([method, path, 401, 'missing_api_key']);
      const invalid = await call(server, wrongKey, method, path, body);
      expect([method, path, invalid.status, invalid.body.code]).toEqual([method, path, 401, 'invalid_api_key']);
    }
    for (const [method, path, body] of endpoints.slice(2)) {
      const foreign = await api(other, method, path, body);
      expect([method, path, foreign.status, foreign.body.code]).toEqual([method, path, 404, 'not_found']);
      const unknown = await api(tenant, method, path.replace(post._id, randomUUID()), body);
      expect([method, path, unknown.status]).toEqual([method, path, 404]);
    }
    expect(await t.deps.db.posts.findOne({ _id: post._id })).toMatchObject({ state: 'DRAFT' });
    expect((await api(tenant, 'GET', '/posts/not-a-uuid')).status).toBe(400);
    // A group id is scoped like a post id: another workspace's is not found.
    expect((await api(other, 'GET', `/posts/${post.groupId}`)).body.code).toBe('not_found');
    expect((await api(tenant, 'GET', `/posts/${post.groupId}`)).status).toBe(200);
  });
});

describe('GET /public/v1/posts', () => {
  it('lists root posts by scheduledFor (createdAt without one) in [startDate, endDate), sorted, own workspace only', async () => {
    const tenant = await buildTenant(t.deps);
    const other = await buildTenant(t.deps);
    const base = Date.parse('2031-03-01T00:00:00Z');
    const at = (days: number) => new Date(base + days * DAY);
    const late = await buildPost(t.deps, tenant.workspaceId, { state: 'QUEUE', scheduledFor: at(5) });
    const early = await buildPost(t.deps, tenant.workspaceId, { state: 'PUBLISHED', scheduledFor: at(1) });
    const draft = await buildPost(t.deps, tenant.workspaceId, { createdAt: at(3), updatedAt: at(3) });
    const atStart = await buildPost(t.deps, tenant.workspaceId, { state: 'QUEUE', scheduledFor: at(0) });
    await buildPost(t.deps, tenant.workspaceId, { state: 'QUEUE', scheduledFor: at(10) }); // at endDate: excluded
    await buildPost(t.deps, tenant.workspaceId, { parentPostId: late._id, groupId: late.groupId, createdAt: at(6) });
    // A draft created in the range but scheduled outside it is matched by its scheduledFor.
    await buildPost(t.deps, tenant.workspaceId, { createdAt: at(2), scheduledFor: at(40) });
    await buildPost(t.deps, other.workspaceId, { state: 'QUEUE', scheduledFor: at(2) });

    const response = await api(
      tenant,
      'GET',
      `/posts?startDate=${at(0).toISOString()}&endDate=${at(10).toISOString()}`,
    );
    expect(response.status).toBe(200);
    const body = PostListSchema.parse(response.body);
    expect(body).toEqual(response.body);
    expect(body.posts.map((post) => post.id)).toEqual([atStart._id, early._id, draft._id, late._id]);
    expect(body.posts[3]).toMatchObject({ scheduledFor: at(5).toISOString(), parentPostId: null, attempts: [] });
  });

  it('defaults to a 93-day window from 31 days ago and refuses bad or too wide ranges', async () => {
    const tenant = await buildTenant(t.deps);
    const recent = await buildPost(t.deps, tenant.workspaceId, {
      state: 'QUEUE',
      scheduledFor: new Date(Date.now() + 10 * DAY),
    });
    await buildPost(t.deps, tenant.workspaceId, { state: 'QUEUE', scheduledFor: new Date(Date.now() + 70 * DAY) });
    await buildPost(t.deps, tenant.workspaceId, { state: 'PUBLISHED', scheduledFor: new Date(Date.now() - 40 * DAY) });
    const listed = await api(tenant, 'GET', '/posts');
    expect((listed.body.posts as Post[]).map((post) => post.id)).toEqual([recent._id]);

    const start = '2031-01-01T00:00:00.000Z';
    const wide = await api(tenant, 'GET', `/posts?startDate=${start}&endDate=2031-04-05T00:00:00.000Z`);
    expect(wide).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', details: [{ path: ['query', 'endDate'] }] },
    });
    expect((await api(tenant, 'GET', `/posts?startDate=${start}&endDate=2031-04-04T00:00:00.000Z`)).status).toBe(200);
    const reversed = await api(tenant, 'GET', `/posts?startDate=${start}&endDate=2030-12-31T00:00:00.000Z`);
    expect(reversed.status).toBe(400);
    const bad = await api(tenant, 'GET', '/posts?startDate=yesterday');
    expect(bad).toMatchObject({ status: 400, body: { details: [{ path: ['query', 'startDate'] }] } });
  });
});

describe('GET /public/v1/posts/{id}', () => {
  it('answers the group with the attempt history, also for a reply id and for the group id', async () => {
    const tenant = await buildTenant(t.deps);
    const root = await buildPost(t.deps, tenant.workspaceId, {
      state: 'PUBLISHED',
      releaseId: '7300000000000000001',
      releaseUrl: 'https://www.tiktok.com/@cats/video/7300000000000000001',
    });
    const reply = await buildPost(t.deps, tenant.workspaceId, {
      groupId: root.groupId,
      parentPostId: root._id,
      platformId: root.platformId,
      delayInMinutes: 5,
      createdAt: new Date(root.createdAt.getTime() + 1),
    });
    const first = await buildAttempt(t.deps, root, { n: 1, phase: 'created_nothing', publishId: null });
    await buildAttempt(t.deps, root, { n: 2 });

    // The group id stands for its root, so a generation job's postGroupId opens as well.
    for (const id of [root._id, reply._id, root.groupId]) {
      const response = await api(tenant, 'GET', `/posts/${id}`);
      expect(response.status).toBe(200);
      const group = PostGroupSchema.parse(response.body);
      expect(group).toEqual(response.body);
      expect(group.root).toMatchObject({ id: root._id, releaseId: '7300000000000000001', state: 'PUBLISHED' });
      expect(group.children.map((child) => [child.id, child.parentPostId, child.delayInMinutes])).toEqual([
        [reply._id, root._id, 5],
      ]);
      expect(group.root.attempts.map((a) => [a.n, a.phase, a.publishId])).toEqual([
        [1, 'created_nothing', null],
        [2, 'init_answered', 'v_pub_test'],
      ]);
      expect(group.root.attempts[0]!.claimedAt).toBe(first.claimedAt.toISOString());
      expect(group.root.attempts[0]!.events).toEqual([
        { at: first.events[0]!.at.toISOString(), what: 'init', detail: 'publish_id v_pub_test' },
      ]);
    }
  });
});

describe('DELETE /public/v1/posts/{id}', () => {
  it('deletes the whole group and its attempts (204), by root, reply or group id', async () => {
    const tenant = await buildTenant(t.deps);
    for (const by of ['root', 'reply', 'group'] as const) {
      const root = await buildPost(t.deps, tenant.workspaceId, { state: 'ERROR', errorText: 'TikTok refused' });
      const reply = await buildPost(t.deps, tenant.workspaceId, { groupId: root.groupId, parentPostId: root._id });
      await buildAttempt(t.deps, root, { phase: 'outcome_unknown' });
      const id = { root: root._id, reply: reply._id, group: root.groupId }[by];
      const response = await api(tenant, 'DELETE', `/posts/${id}`);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(await t.deps.db.posts.countDocuments({ groupId: root.groupId })).toBe(0);
      expect(await t.deps.db.publishAttempts.countDocuments({ postId: root._id })).toBe(0);
      expect((await api(tenant, 'GET', `/posts/${root._id}`)).status).toBe(404);
    }
  });

  it('refuses while the post is being published or its edit lease is held (409), and deletes after', async () => {
    const tenant = await buildTenant(t.deps);
    const publishing = await buildPost(t.deps, tenant.workspaceId, { state: 'PUBLISHING' });
    const refused = await api(tenant, 'DELETE', `/posts/${publishing._id}`);
    expect(refused).toMatchObject({
      status: 409,
      body: { code: 'conflict', message: expect.stringMatching(/being published/) },
    });
    expect(await t.deps.db.posts.findOne({ _id: publishing._id })).not.toBeNull();

    const queued = await buildPost(t.deps, tenant.workspaceId, {
      state: 'QUEUE',
      scheduledFor: new Date(Date.now() + HOUR),
    });
    const lease = await claimLease(t.deps.db, `post:${queued._id}`, { ttlMs: 30_000 });
    expect(lease).not.toBeNull();
    expect((await api(tenant, 'DELETE', `/posts/${queued._id}`)).status).toBe(409);
    await releaseLease(t.deps.db, lease!);
    expect((await api(tenant, 'DELETE', `/posts/${queued._id}`)).status).toBe(204);
  });
});

describe('PATCH /public/v1/posts/{id}/schedule', () => {
  it('moves a queued post and queues a job for the new time; moves a draft without one', async () => {
    const { tenant, platform, video, draft } = await withDraft();
    const created = await api(
      tenant,
      'POST',
      '/posts',
      postBody([platform._id], [video._id], { mode: 'schedule', scheduledFor: inFuture(HOUR) }),
    );
    const queued = (created.body as { results: { post: Group }[] }).results[0]!.post.root;
    const later = inFuture(2 * DAY);
    const moved = await api(tenant, 'PATCH', `/posts/${queued.id}/schedule`, { scheduledFor: later });
    expect(moved.status).toBe(200);
    expect(PostGroupSchema.parse(moved.body).root).toMatchObject({
      id: queued.id,
      state: 'QUEUE',
      scheduledFor: later,
    });
    expect((await t.deps.db.posts.findOne({ _id: queued.id }))?.dueAt?.toISOString()).toBe(later);
    expect((await publishJobs(t, queued.id)).map((job) => job.runAt.toISOString())).toContain(later);

    const movedDraft = await api(tenant, 'PATCH', `/posts/${draft.id}/schedule`, { scheduledFor: later });
    expect((movedDraft.body as unknown as Group).root).toMatchObject({ state: 'DRAFT', scheduledFor: later });
    expect(await t.deps.db.posts.findOne({ _id: draft.id })).toMatchObject({ dueAt: null });
    expect(await publishJobs(t, draft.id)).toEqual([]);
  });

  it('refuses a past time (400), a post past QUEUE or a reply (409 conflict), and a held lease (409)', async () => {
    const tenant = await buildTenant(t.deps);
    const queued = await buildPost(t.deps, tenant.workspaceId, {
      state: 'QUEUE',
      scheduledFor: new Date(Date.now() + HOUR),
    });
    const past = await api(tenant, 'PATCH', `/posts/${queued._id}/schedule`, {
      scheduledFor: new Date(Date.now() - 1000).toISOString(),
    });
    expect(past).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', details: [{ path: ['body', 'scheduledFor'] }] },
    });
    const missing = await api(tenant, 'PATCH', `/posts/${queued._id}/schedule`, {});
    expect(missing).toMatchObject({ status: 400, body: { details: [{ path: ['body', 'scheduledFor'] }] } });

    for (const state of ['PUBLISHING', 'PUBLISHED', 'ERROR'] as const) {
      const post = await buildPost(t.deps, tenant.workspaceId, { state });
      const refused = await api(tenant, 'PATCH', `/posts/${post._id}/schedule`, { scheduledFor: inFuture() });
      expect([state, refused.status, refused.body.code]).toEqual([state, 409, 'conflict']);
      expect(refused.body.message).toContain(state);
    }
    const reply = await buildPost(t.deps, tenant.workspaceId, {
      groupId: queued.groupId,
      parentPostId: queued._id,
      state: 'QUEUE',
    });
    const onReply = await api(tenant, 'PATCH', `/posts/${reply._id}/schedule`, { scheduledFor: inFuture() });
    expect(onReply).toMatchObject({
      status: 409,
      body: { code: 'conflict', message: expect.stringContaining(queued._id) },
    });

    const lease = await claimLease(t.deps.db, `post:${queued._id}`, { ttlMs: 30_000 });
    const held = await api(tenant, 'PATCH', `/posts/${queued._id}/schedule`, { scheduledFor: inFuture(DAY) });
    expect(held).toMatchObject({ status: 409, body: { code: 'conflict' } });
    await releaseLease(t.deps.db, lease!);
    expect((await t.deps.db.posts.findOne({ _id: queued._id }))?.scheduledFor?.getTime()).toBe(
      queued.scheduledFor!.getTime(),
    );
  });
});

describe('POST /public/v1/posts/{id}/publish', () => {
  it('queues a draft now with reviewed content and settings, spending a cap unit and queuing a job', async () => {
    const { tenant, draft } = await withDraft();
    const response = await api(tenant, 'POST', `/posts/${draft.id}/publish`, {
      content: 'Reviewed caption',
      settings: { ...DIRECT, privacy_level: 'SELF_ONLY', disable_comment: false },
    });
    expect(response.status).toBe(200);
    const group = PostGroupSchema.parse(response.body);
    expect(group.root).toMatchObject({
      id: draft.id,
      state: 'QUEUE',
      content: 'Reviewed caption',
      settings: {
        ...DIRECT,
        privacy_level: 'SELF_ONLY',
        disable_comment: false,
        disable_duet: true,
        disable_stitch: true,
      },
    });
    expect(Date.parse(group.root.scheduledFor!)).toBeLessThanOrEqual(Date.now());
    const stored = await t.deps.db.posts.findOne({ _id: draft.id });
    expect(stored?.capSpend).toMatchObject({ pool: `posts:${tenant.accountId}` });
    expect(await t.deps.db.ledger.findOne({ _id: stored!.capSpend!.id })).toMatchObject({ ref: draft.id });
    expect(await publishJobs(t, draft.id)).toHaveLength(1);

    const again = await api(tenant, 'POST', `/posts/${draft.id}/publish`, {});
    expect(again).toMatchObject({ status: 409, body: { code: 'not_a_draft' } });
  });

  it('schedules a draft for scheduledFor, which must be given and in the future', async () => {
    const { tenant, draft } = await withDraft();
    const missing = await api(tenant, 'POST', `/posts/${draft.id}/publish`, { mode: 'schedule' });
    expect(missing).toMatchObject({ status: 400, body: { details: [{ path: ['body', 'scheduledFor'] }] } });
    const past = await api(tenant, 'POST', `/posts/${draft.id}/publish`, {
      mode: 'schedule',
      scheduledFor: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(past).toMatchObject({ status: 400, body: { details: [{ path: ['body', 'scheduledFor'] }] } });
    const at = inFuture(DAY);
    const scheduled = await api(tenant, 'POST', `/posts/${draft.id}/publish`, { mode: 'schedule', scheduledFor: at });
    expect(scheduled.status).toBe(200);
    expect((scheduled.body as unknown as Group).root).toMatchObject({
      state: 'QUEUE',
      scheduledFor: at,
      content: 'A cat #cats',
    });
    expect((await publishJobs(t, draft.id)).map((job) => job.runAt.toISOString())).toEqual([at]);
  });

  it('checks again against the live creator: a refused review or stale draft leaves the draft unchanged', async () => {
    const { tenant, openId, draft } = await withDraft();
    const badReview = await api(tenant, 'POST', `/posts/${draft.id}/publish`, {
      settings: { ...DIRECT, privacy_level: 'FRIENDS_OF_NOBODY' },
    });
    expect(badReview).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', details: [{ path: ['body', 'settings', 'privacy_level'] }] },
    });
    const longReview = await api(tenant, 'POST', `/posts/${draft.id}/publish`, { content: '😀'.repeat(1101) });
    expect(longReview).toMatchObject({ status: 400, body: { details: [{ path: ['body', 'content'] }] } });

    await control(f, `/accounts/${openId}`, { privacyLevelOptions: ['SELF_ONLY'] }, 'PATCH');
    await expireCreatorInfo(t.deps);
    const stale = await api(tenant, 'POST', `/posts/${draft.id}/publish`, {});
    expect(stale).toMatchObject({ status: 400, body: { details: [{ path: ['settings', 'privacy_level'] }] } });
    const stored = await t.deps.db.posts.findOne({ _id: draft.id });
    expect(stored).toMatchObject({ state: 'DRAFT', content: 'A cat #cats', capSpend: null, dueAt: null });
    expect(stored?.settings.privacy_level).toBe('PUBLIC_TO_EVERYONE');
    expect(await publishJobs(t, draft.id)).toEqual([]);
  });

  it('refuses a reply id (409 conflict naming the root) and a held lease (409)', async () => {
    const { tenant, draft } = await withDraft();
    const reply = await buildPost(t.deps, tenant.workspaceId, { groupId: draft.groupId, parentPostId: draft.id });
    const onReply = await api(tenant, 'POST', `/posts/${reply._id}/publish`, {});
    expect(onReply).toMatchObject({
      status: 409,
      body: { code: 'conflict', message: expect.stringContaining(draft.id) },
    });
    const lease = await claimLease(t.deps.db, `post:${draft.id}`, { ttlMs: 30_000 });
    expect((await api(tenant, 'POST', `/posts/${draft.id}/publish`, {})).body.code).toBe('conflict');
    await releaseLease(t.deps.db, lease!);
    expect((await t.deps.db.posts.findOne({ _id: draft.id }))?.state).toBe('DRAFT');
  });
});

describe('media in use', () => {
  it('keeps media of queued and publishing posts from deletion; a draft does not hold it', async () => {
    const tenant = await buildTenant(t.deps);
    for (const [state, status] of [
      ['QUEUE', 409],
      ['PUBLISHING', 409],
      ['DRAFT', 204],
      ['PUBLISHED', 204],
    ] as const) {
      const video = await buildVideo(t.deps, tenant.workspaceId);
      await buildPost(t.deps, tenant.workspaceId, { state, mediaIds: [video._id] });
      const response = await api(tenant, 'DELETE', `/media/${video._id}`);
      expect([state, response.status]).toEqual([state, status]);
    }
  });
});
