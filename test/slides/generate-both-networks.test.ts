import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatorTenant, FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { connectedInstagram } from '../support/instagram.js';
import { call, DIRECT } from '../support/posts.js';

// A generation job for a TikTok and an Instagram account (the real Instagram provider and its emulator) with
// one settings object: each network's post takes its own keys, as POST /posts
// and the job's own submit check read them.
let stack: AiStack;
beforeAll(async () => {
  stack = await startAiStack({ plans: FREE_AND_CREATOR_PLANS, instagram: true });
});
afterAll(() => stack.stop());

describe('POST /slides/generate for TikTok and Instagram', () => {
  it("makes both networks' posts from TikTok's settings, each post storing only its own network's keys", async () => {
    const { tenant, platform: tiktok } = await creatorTenant(stack);
    const { platform: gram } = await connectedInstagram(stack.t, stack.ig!, tenant);
    const accepted = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [tiktok._id, gram._id],
      slides: ['Two calm mornings', 'Water before coffee'].map((caption, index) => ({
        index,
        caption,
        imagePrompt: `a calm morning desk, scene ${index}`,
      })),
      mode: 'draft',
      settings: DIRECT,
    });
    expect(accepted.status).toBe(202);
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 1200 && job.status !== 'DONE' && job.status !== 'FAILED'; i++) {
      if (i > 0) await sleep(100);
      job = (await call(stack.server, tenant.apiKey, 'GET', `/slides/generate/${String(accepted.body.jobId)}`)).body;
    }
    expect(job).toMatchObject({ status: 'DONE', error: null });
    const groupIds = job.postGroupIds as string[];
    expect(groupIds).toHaveLength(2);
    const posts = await Promise.all(groupIds.map((groupId) => stack.t.deps.db.posts.findOne({ groupId })));
    expect(posts.map((post) => [post?.platformId, post?.settings])).toEqual([
      [tiktok._id, expect.objectContaining(DIRECT)],
      [gram._id, {}],
    ]);
  });
});
