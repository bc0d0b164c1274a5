import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyId } from '../../src/core/idempotency/key.js';
import { groupOfEarlierRun } from '../../src/core/posts/earlier-run.js';
import type { PostDoc } from '../../src/core/posts/documents.js';
import { creatorTenant, FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { buildVideo, call, DIRECT, postBody } from '../support/posts.js';

// A keyed request whose process died after doing its work but before keeping its answer is executed
// again once its attempt lapses. The repeat must find that work, not do it twice: the posts and the job
// it creates take ids derived from the key. The database is left as such a death leaves it.
let stack: AiStack;
beforeAll(async () => {
  // No worker until a test starts one: a generation job stays WAITING, as a death before its run leaves it.
  stack = await startAiStack({ plans: FREE_AND_CREATOR_PLANS, worker: false });
});
afterAll(() => stack.stop());

/** What the idempotency store holds after its executor died between the work and keeping the outcome. */
async function dieBeforeKeeping(workspaceId: string, key: string): Promise<void> {
  const store = stack.t.db.collection<{ _id: string; bindingId?: string }>('idempotency');
  const binding = await store.findOne({ _id: idempotencyKeyId(workspaceId, key) });
  expect(binding?.bindingId).toBeTruthy();
  const outcome = await store.deleteOne({ _id: `${binding!.bindingId}#outcome` });
  expect(outcome.deletedCount).toBe(1);
  const lapsed = await store.updateMany(
    { _id: { $regex: `^${binding!.bindingId}#[0-9]+$` } },
    { $set: { expiresAt: new Date(Date.now() - 1_000), releasedAt: null } },
  );
  expect(lapsed.modifiedCount).toBe(1);
}

/**
 * Sends a keyed request, leaves the store as a death before keeping its answer leaves it, and sends it
 * again: both answered `status`, the second executed (not replayed).
 */
async function sendAcrossADeath(
  tenant: { apiKey: string; workspaceId: string },
  path: string,
  body: unknown,
  status: number,
) {
  const key = { 'idempotency-key': `repeat-${randomUUID()}` };
  const first = await call(stack.server, tenant.apiKey, 'POST', path, body, key);
  expect(first.status).toBe(status);
  await dieBeforeKeeping(tenant.workspaceId, key['idempotency-key']);
  const again = await call(stack.server, tenant.apiKey, 'POST', path, body, key);
  expect(again.status).toBe(status);
  expect(again.headers.get('idempotent-replayed')).toBeNull();
  return { first, again, key };
}

const used = async (apiKey: string) =>
  (await call(stack.server, apiKey, 'GET', '/usage')).body as Record<string, { used: number }>;

type Created = { results: { status: string; post: { root: { id: string; groupId: string } } }[] };

describe('a keyed request executed again after its process died', () => {
  it('POST /posts answers the post the first execution stored and spends the cap once', async () => {
    const { tenant, platform } = await creatorTenant(stack);
    const video = await buildVideo(stack.t.deps, tenant.workspaceId);
    const content = `Once only ${randomUUID()}`;
    const body = postBody([platform._id], [video._id], {
      content,
      mode: 'schedule',
      scheduledFor: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const { first, again, key } = await sendAcrossADeath(tenant, '/posts', body, 201);
    const root = (answer: { body: unknown }) => (answer.body as Created).results[0]!.post.root;
    expect(root(again)).toEqual(root(first));
    const stored = await stack.t.deps.db.posts.find({ workspaceId: tenant.workspaceId, content }).toArray();
    expect(stored.map((post) => post._id)).toEqual([root(first).id]);
    expect((await used(tenant.apiKey)).monthlyPosts?.used).toBe(1);
    // The repeat's answer is kept now: a third request replays it.
    const third = await call(stack.server, tenant.apiKey, 'POST', '/posts', body, key);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(root(third)).toEqual(root(first));
  });

  it('POST /posts without a key still creates a new post each time', async () => {
    const { tenant, platform } = await creatorTenant(stack);
    const video = await buildVideo(stack.t.deps, tenant.workspaceId);
    const body = postBody([platform._id], [video._id], { mode: 'draft', content: 'Twice on purpose' });
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const answer = await call(stack.server, tenant.apiKey, 'POST', '/posts', body);
      expect(answer.status).toBe(201);
      ids.push((answer.body as Created).results[0]!.post.root.id);
    }
    expect(new Set(ids).size).toBe(2);
  });

  it('adds the replies an earlier run stored its root without, in thread order', async () => {
    const { tenant, platform } = await creatorTenant(stack);
    const scope = { workspaceId: tenant.workspaceId, accountId: tenant.accountId, actor: { type: 'system' as const } };
    const now = new Date();
    const base = {
      workspaceId: tenant.workspaceId,
      accountId: tenant.accountId,
      groupId: randomUUID(),
      platformId: platform._id,
      state: 'DRAFT' as const,
      releaseId: null,
      releaseUrl: null,
      errorText: null,
      capSpend: null,
      settings: {},
      mediaIds: [],
      scheduledFor: null,
      dueAt: null,
      createdAt: now,
      updatedAt: now,
    };
    const rootId = randomUUID();
    const replies: PostDoc[] = ['first reply', 'second reply'].map((content) => ({
      ...base,
      _id: randomUUID(),
      parentPostId: rootId,
      content,
      delayInMinutes: null,
    }));
    const root: PostDoc = {
      ...base,
      _id: rootId,
      parentPostId: null,
      content: 'root',
      delayInMinutes: null,
      replyIds: replies.map((reply) => reply._id),
    };
    // The earlier run died after the root and the first reply.
    await stack.t.deps.db.posts.insertMany([root, replies[0]!]);

    const group = await groupOfEarlierRun(stack.t.deps, scope, root, replies);
    expect(group.root.id).toBe(rootId);
    expect(group.children.map((child) => child.content)).toEqual(['first reply', 'second reply']);
    expect(await stack.t.deps.db.posts.countDocuments({ parentPostId: rootId })).toBe(2);
    // Another workspace's post under the same id is not this call's.
    const other = await creatorTenant(stack);
    const stranger = { ...scope, workspaceId: other.tenant.workspaceId, accountId: other.tenant.accountId };
    await expect(groupOfEarlierRun(stack.t.deps, stranger, root, replies)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('POST /slides/generate answers the first job, reserves credits once, and the job makes one post', async () => {
    const { tenant, platform } = await creatorTenant(stack);
    const body = {
      platformIds: [platform._id],
      slides: [0, 1].map((index) => ({ index, caption: `Slide ${index}`, imagePrompt: 'a quiet harbour at dawn' })),
      content: 'Harbour mornings',
      mode: 'draft',
      settings: DIRECT,
    };
    const { first, again } = await sendAcrossADeath(tenant, '/slides/generate', body, 202);
    expect(again.body).toEqual(first.body);
    expect(await stack.t.deps.db.generationJobs.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
    expect((await used(tenant.apiKey)).imageCredits?.used).toBe(2);

    // The repeat queued the WAITING job again (its first run may never have been queued): run twice, one post.
    await stack.t.startWorker();
    const jobId = String(first.body.jobId);
    let job: { status: string; postIds: string[] } | undefined;
    for (let i = 0; i < 600 && job?.status !== 'DONE' && job?.status !== 'FAILED'; i++) {
      job = (await call(stack.server, tenant.apiKey, 'GET', `/slides/generate/${jobId}`)).body as typeof job;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job?.status).toBe('DONE');
    expect(await stack.t.deps.db.posts.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
    expect((await used(tenant.apiKey)).imageCredits?.used).toBe(2);
  }, 120_000);
});
