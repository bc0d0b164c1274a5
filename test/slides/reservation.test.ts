import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiStack, type AiStack } from '../support/ai.js';
import { call, connectedTenant, DIRECT } from '../support/posts.js';

// A generation job takes every credit it needs when it is accepted, all or none.
let stack: AiStack;
beforeAll(async () => {
  // Generous provider timeouts: 14 jobs at once on a busy machine must not fail for slowness.
  stack = await startAiStack({
    ai: { textTimeoutMs: 60_000, imageTimeoutMs: 60_000 },
    plans: {
      free: { captionCredits: 20, imageCredits: 0, monthlyPosts: 30 },
      studio: { captionCredits: 30, imageCredits: 141, monthlyPosts: 50 },
    },
  });
});
afterAll(() => stack.stop());

type Job = { id: string; status: string; completed: number; postGroupId: string | null; error: string | null };

async function studioTenant() {
  const { tenant, platform } = await connectedTenant(stack.t, stack.f);
  await stack.t.db.collection('accounts').updateOne({ _id: tenant.accountId as never }, { $set: { plan: 'studio' } });
  return { tenant, platform };
}

async function finish(apiKey: string, jobId: string): Promise<Job> {
  for (let i = 0; i < 3_000; i++) {
    const job = (await call(stack.server, apiKey, 'GET', `/slides/generate/${jobId}`)).body as unknown as Job;
    if (job.status === 'DONE' || job.status === 'FAILED') return job;
    await sleep(100);
  }
  throw new Error(`job ${jobId} did not finish`);
}

const usage = async (apiKey: string) =>
  (await call(stack.server, apiKey, 'GET', '/usage')).body as Record<string, { used: number; remaining: number }>;

/** The image credits charged in the ledger, by the job each one is for. */
async function imageCreditsByJob(accountId: string): Promise<Map<string, number>> {
  const units = await stack.t.deps.db.ledger.find({ pool: `image:${accountId}` }).toArray();
  const byJob = new Map<string, number>();
  for (const unit of units) {
    const jobId = unit.ref.split('#')[0] as string;
    byJob.set(jobId, (byJob.get(jobId) ?? 0) + 1);
  }
  return byJob;
}

describe('credits reserved when a job is accepted', () => {
  it('accepts exactly 14 of 20 concurrent 10-slide jobs against 141 image credits, and all 14 finish', async () => {
    const { tenant, platform } = await studioTenant();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
          platformIds: [platform._id],
          topic: `race ${n}`,
          slideCount: 10,
          mode: 'draft',
          settings: DIRECT,
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 202)).toHaveLength(14);
    expect(statuses.filter((status) => status === 402)).toHaveLength(6);
    for (const refused of answers.filter((answer) => answer.status === 402)) {
      expect(refused.body.code).toBe('ai_image_limit_reached');
    }
    // At once, before any image is drawn: the accepted jobs hold all they need.
    const held = await usage(tenant.apiKey);
    expect(held.imageCredits).toMatchObject({ used: 140, remaining: 1 });
    expect(held.captionCredits?.used).toBe(14);

    const jobs = await Promise.all(
      answers
        .filter((answer) => answer.status === 202)
        .map((answer) => finish(tenant.apiKey, String(answer.body.jobId))),
    );
    expect(jobs.map((job) => `${job.status} ${job.error ?? ''}`)).toEqual(Array(14).fill('DONE '));
    const posts = await stack.t.deps.db.posts.find({ workspaceId: tenant.workspaceId }).toArray();
    expect(posts).toHaveLength(14);
    const byJob = await imageCreditsByJob(tenant.accountId);
    // Every charged credit belongs to a job that made its post, and each such job paid for its 10 slides.
    expect([...byJob.keys()].sort()).toEqual(jobs.map((job) => job.id).sort());
    expect([...byJob.values()]).toEqual(Array(14).fill(10));
    const after = await usage(tenant.apiKey);
    expect(after.imageCredits?.used).toBe(posts.reduce((sum, post) => sum + post.mediaIds.length, 0));
    expect(after.captionCredits?.used).toBe(14);
  }, 600_000);

  it('gives back the credits of slides a failed job never drew, keeping those it drew', async () => {
    const { tenant, platform } = await studioTenant();
    stack.openai.control.faults.add({
      endpoint: 'images',
      kind: 'moderation_blocked',
      times: 1,
      match: 'stormy',
      retryAfterSeconds: 1,
    });
    const accepted = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      slides: Array.from({ length: 8 }, (_, index) => ({
        index,
        caption: `Slide ${index}`,
        imagePrompt: index === 2 ? 'a stormy sea at night' : `a quiet meadow, number ${index}`,
      })),
      mode: 'draft',
      settings: DIRECT,
    });
    expect(accepted.status).toBe(202);
    expect((await usage(tenant.apiKey)).imageCredits?.used).toBe(8);
    const job = await finish(tenant.apiKey, String(accepted.body.jobId));
    expect(job).toMatchObject({ status: 'FAILED', postGroupId: null });
    const stored = await stack.t.deps.db.generationJobs.findOne({ _id: job.id });
    const drawn = stored?.slides.filter((slide) => slide.generatedMediaId).length ?? -1;
    expect(drawn).toBeLessThan(8);
    expect((await usage(tenant.apiKey)).imageCredits?.used).toBe(drawn);
    expect((await imageCreditsByJob(tenant.accountId)).get(job.id) ?? 0).toBe(drawn);
  }, 120_000);

  it('spends nothing when the caption pool is empty, giving the image credits back', async () => {
    const { tenant, platform } = await studioTenant();
    for (let n = 0; n < 30; n++) {
      expect((await call(stack.server, tenant.apiKey, 'POST', '/slides/caption', { topic: `t${n}` })).status).toBe(200);
    }
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/generate', {
      platformIds: [platform._id],
      topic: 'one too many',
      slideCount: 3,
      mode: 'draft',
      settings: DIRECT,
    });
    expect(answer.status).toBe(402);
    expect(answer.body.code).toBe('ai_credit_limit_reached');
    expect((await usage(tenant.apiKey)).imageCredits?.used).toBe(0);
  }, 120_000);
});
