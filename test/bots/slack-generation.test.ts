import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { emulatorAiConfig } from '../support/ai.js';
import { connectCreator, PUBLIC_SETTINGS, startWorld, type PublishingWorld, SLOW } from '../publishing/support.js';
import {
  eventually,
  linkTeam,
  runCommand,
  startSlackWorld,
  type SlackPerson,
  type SlackWorld,
} from './slack-support.js';

let openai: RunningOpenAiEmulator;
let w: PublishingWorld;
let s: SlackWorld;
let platformId: string;
const ANA: SlackPerson = { userId: 'U0ANA', userName: 'ana', channelId: 'C0GENERATED' };

beforeAll(async () => {
  openai = await startOpenAiEmulator();
  w = await startWorld({ ai: emulatorAiConfig(openai) });
  await w.t.db.collection('accounts').updateOne({ _id: w.tenant.accountId as never }, { $set: { plan: 'creator' } });
  s = await startSlackWorld(w);
  await linkTeam(w, s, ANA);
  await runCommand(s, 'approvals here', ANA);
  platformId = (await connectCreator(w)).platform._id;
}, 120_000);
afterAll(async () => {
  await s?.close();
  await w?.close();
  await openai?.stop();
});

async function generate(topic: string): Promise<string> {
  const answer = await fetch(`${w.server.url}/public/v1/slides/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ platformIds: [platformId], topic, slideCount: 3, mode: 'draft', settings: PUBLIC_SETTINGS }),
  });
  expect(answer.status).toBe(202);
  return ((await answer.json()) as { jobId: string }).jobId;
}

describe('Slack cards for generated slideshows', () => {
  it(
    "posts a card for a generation job's draft, with its three composited slides and the job named",
    SLOW,
    async () => {
      const jobId = await generate('sourdough at home');
      const job = await eventually(async () => {
        const doc = await w.t.deps.db.generationJobs.findOne({ _id: jobId });
        return doc?.status === 'DONE' ? doc : null;
      }, 60_000);
      const post = (await w.t.deps.db.posts.findOne({ groupId: job.postGroupId! }))!;
      const card = await eventually(() =>
        s.slack.state.channel(ANA.channelId).find((m) => JSON.stringify(m.blocks).includes(post._id)),
      );
      const images = card.blocks.filter((b) => (b as { type: string }).type === 'image') as { image_url: string }[];
      const composites = post.mediaIds.map((id) => id);
      expect(images.map((image) => image.image_url.split('/')[4])).toEqual(composites);
      expect(JSON.stringify(card.blocks)).toContain(`Slideshow generation ${jobId} for API key`);
      expect(s.slack.state.channel(ANA.channelId).filter((m) => m.threadTs === null)).toHaveLength(1);
    },
  );

  it('tells the channel when a generation fails, once', SLOW, async () => {
    openai.control.faults.add({
      endpoint: 'images',
      kind: 'moderation_blocked',
      times: 5,
      match: 'forbidden cake',
      retryAfterSeconds: 1,
    });
    const jobId = await generate('forbidden cake');
    const notice = await eventually(
      () => s.slack.state.channel(ANA.channelId).find((m) => m.text.includes(jobId)),
      60_000,
    );
    expect(notice.text).toMatch(new RegExp(`Slideshow generation ${jobId} failed: .+`));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(s.slack.state.channel(ANA.channelId).filter((m) => m.text.includes(jobId))).toHaveLength(1);
  });
});
