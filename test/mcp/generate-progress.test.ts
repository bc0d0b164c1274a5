import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatorTenant, FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { DIRECT } from '../support/posts.js';

// generate_slideshow over Streamable HTTP on the emulators, with a worker running the job.
let stack: AiStack;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await startAiStack({
    plans: FREE_AND_CREATOR_PLANS,
  });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stack.stop();
});

async function creator() {
  const { tenant, platform } = await creatorTenant(stack);
  const client = await connectMcpOverHttp(stack.server.url, tenant.apiKey);
  clients.push(client);
  return { client, platformId: platform._id };
}

type Job = {
  status: string;
  stage: string;
  completed: number;
  total: number;
  postId: string | null;
  postGroupId: string | null;
};

describe('generate_slideshow over MCP', () => {
  it('reports progress in order while the job runs, then returns the finished job and its post group', async () => {
    const { client, platformId } = await creator();
    stack.openai.control.setLatency({ imagesMs: 150 });
    const progress: Progress[] = [];
    const result = (await client.callTool(
      {
        name: 'generate_slideshow',
        arguments: {
          platformIds: [platformId],
          topic: 'indoor herb garden',
          slideCount: 4,
          mode: 'draft',
          settings: DIRECT,
        },
      },
      undefined,
      { onprogress: (update) => progress.push(update), resetTimeoutOnProgress: true },
    )) as CallToolResult;
    stack.openai.control.setLatency({ imagesMs: 0 });
    expect(result.isError).toBeFalsy();
    const { job, total, status } = result.structuredContent as { job: Job; total: number; status: string };
    expect(total).toBe(4);
    expect(job).toMatchObject({ status: 'DONE', stage: 'done', completed: 4, total: 4 });
    // The top level agrees with the job it carries: never the WAITING it was accepted in.
    expect(status).toBe('DONE');
    expect(job.postGroupId).toMatch(/^[0-9a-f-]{36}$/);
    // What the job names opens with get_post: the root post's id, and the group id as well.
    for (const id of [job.postId, job.postGroupId]) {
      const opened = (await client.callTool({ name: 'get_post', arguments: { id } })) as CallToolResult;
      expect(opened.isError, String(id)).toBeFalsy();
      expect(opened.structuredContent).toMatchObject({ root: { id: job.postId, groupId: job.postGroupId } });
    }
    // In order: the count never goes back, the stages only move forward, and it ends at done.
    const counts = progress.map((update) => update.progress);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(progress.every((update) => update.total === 4)).toBe(true);
    const stages = ['queued', 'writing_captions', 'generating_images', 'creating_post', 'done'];
    const order = progress.map((update) => stages.indexOf(String(update.message)));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(progress.at(-1)).toMatchObject({ progress: 4, message: 'done' });
    expect(new Set(progress.map((update) => update.message)).size).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('answers at once without a progress token, and a cancelled wait leaves the job running to DONE', async () => {
    const { client, platformId } = await creator();
    const args = { platformIds: [platformId], topic: 'city cycling', slideCount: 3, mode: 'draft', settings: DIRECT };
    const quick = (await client.callTool({ name: 'generate_slideshow', arguments: args })) as CallToolResult;
    expect(quick.structuredContent).toMatchObject({ status: 'WAITING', total: 3 });
    expect(quick.structuredContent).not.toHaveProperty('job');
    const { jobId } = quick.structuredContent as { jobId: string };
    const read = (await client.callTool({ name: 'get_generation_job', arguments: { id: jobId } })) as CallToolResult;
    expect(read.structuredContent).toMatchObject({ id: jobId, total: 3 });

    stack.openai.control.setLatency({ imagesMs: 1_000 });
    const abort = new AbortController();
    const seen: Progress[] = [];
    const waiting = client.callTool({ name: 'generate_slideshow', arguments: { ...args, wait: true } }, undefined, {
      signal: abort.signal,
      onprogress: (update) => {
        seen.push(update);
        if (update.message === 'generating_images') abort.abort();
      },
    });
    await expect(waiting).rejects.toThrow();
    stack.openai.control.setLatency({ imagesMs: 0 });
    expect(seen.length).toBeGreaterThan(0);
    // The job itself was not harmed: it finishes on its own.
    const jobs = await stack.t.deps.db.generationJobs.find({ 'request.topic': 'city cycling' }).toArray();
    expect(jobs).toHaveLength(2);
    for (let i = 0; i < 200; i++) {
      const statuses = (await stack.t.deps.db.generationJobs.find({ 'request.topic': 'city cycling' }).toArray()).map(
        (job) => job.status,
      );
      if (statuses.every((status) => status === 'DONE')) break;
      await sleep(100);
    }
    const done = await stack.t.deps.db.generationJobs.find({ 'request.topic': 'city cycling' }).toArray();
    expect(done.map((job) => job.status)).toEqual(['DONE', 'DONE']);
  }, 60_000);

  it("reads a connected platform's posting schema as a resource", async () => {
    const { client, platformId } = await creator();
    const { resources } = await client.listResources();
    const uri = `postdeck://platforms/${platformId}/schema`;
    expect(resources.map((resource) => resource.uri)).toContain(uri);
    const read = await client.readResource({ uri });
    const schema = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
    const fromTool = (await client.callTool({
      name: 'get_platform_schema',
      arguments: { id: platformId },
    })) as CallToolResult;
    // Both read TikTok live, so only the moment of reading may differ.
    const same = (value: Record<string, unknown>) =>
      JSON.stringify(value, (key, v: unknown) => (/At$/.test(key) ? 0 : v));
    expect(same(schema)).toBe(same(fromTool.structuredContent as Record<string, unknown>));
  });
});
