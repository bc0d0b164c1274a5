/**
 * The slideshow generation pipeline (npm run bench:generation) at 500 ms emulated model latency,
 * in this process on the embedded database (the OpenAI emulator in a process of its own, as a model
 * is elsewhere): a topic job of n slides from its start to DONE
 * (captions, images at AI_IMAGE_CONCURRENCY, stored media, composites, the draft post), against
 * the ideal of one caption call plus ceil(n / concurrency) rounds of image calls. The ideal is
 * printed as arithmetic and as measured: the same model calls made straight to the emulator in this
 * run. Goal: the pipeline at most 10% over the measured ideal. BENCH_LATENCY_MS changes the latency (500). Also printed: the CPU time this process spent
 * on a job (its own threads and libvips'), which the machine's load does not change as it does the
 * wall time.
 */
import { randomUUID } from 'node:crypto';
import type { Core } from '../src/app/main.js';
import type { Scope } from '../src/core/context.js';
import { runGeneration } from '../src/core/slides/generation/run-generation.js';
import { submitGeneration } from '../src/core/slides/generation/submit.js';
import { writeCaptions } from '../src/core/slides/write-captions.js';
import { startInProcess } from './support/in-process.js';
import { startOpenAiChild } from './support/openai-child.js';
import { BENCH_SETTINGS } from './support/seed.js';

const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 500);
const SLIDE_COUNTS = (process.env.BENCH_SLIDES ?? '6,10').split(',').map(Number);
const CONCURRENCY = Number(process.env.AI_IMAGE_CONCURRENCY ?? 3); // the setting's default
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GOAL = 1.1;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** The model calls alone: one caption call, then the image calls in rounds of `CONCURRENCY`. */
async function idealCalls(core: Core, slides: number): Promise<void> {
  const { provider } = core.deps.ai;
  await writeCaptions(provider, {
    topic: 'morning routines that stick',
    slideCount: slides,
    language: 'en',
    slideLength: 'medium',
    imagePrompts: true,
    systemPrompt: '',
    knowledgeBase: '',
    exampleHooks: [],
  });
  for (let done = 0; done < slides; done += CONCURRENCY) {
    const round = Math.min(CONCURRENCY, slides - done);
    await Promise.all(
      Array.from({ length: round }, (_, i) =>
        provider.image({
          purpose: 'slide image',
          prompt: `a sunrise over a city, frame ${done + i}`,
          size: '1024x1536',
        }),
      ),
    );
  }
}

/** One job from its start to DONE (submitted first, so the queue's pick-up is not in it): wall and CPU ms. */
async function pipeline(
  core: Core,
  scope: Scope,
  platformId: string,
  slides: number,
): Promise<{ ms: number; cpuMs: number }> {
  const { jobId } = await submitGeneration(core.deps, scope, {
    platformIds: [platformId],
    topic: `morning routines that stick ${randomUUID().slice(0, 6)}`,
    slideCount: slides,
    mode: 'draft',
    settings: BENCH_SETTINGS,
  });
  const cpu = process.cpuUsage();
  const ms = await timed(() => runGeneration(core.deps, jobId));
  const used = process.cpuUsage(cpu);
  const job = await core.deps.db.generationJobs.findOne({ _id: jobId });
  if (job?.status !== 'DONE') throw new Error(`job ${jobId} ended ${job?.status}: ${job?.error}`);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

async function main(): Promise<void> {
  const openai = await startOpenAiChild(LATENCY_MS);
  const postdeck = await startInProcess('generation', {
    openaiBaseUrl: openai.baseUrl,
    env: { AI_IMAGE_CONCURRENCY: String(CONCURRENCY) },
  });
  const { core } = postdeck;
  try {
    const { scope, platformIds } = await postdeck.workspace();
    const platformId = platformIds[0] ?? '';
    await pipeline(core, scope, platformId, 3); // warm fonts, the JIT and the database
    console.log(`model latency ${LATENCY_MS} ms per call; ${CONCURRENCY} images at once; median of ${ROUNDS} runs`);
    for (const slides of SLIDE_COUNTS) {
      const arithmetic = LATENCY_MS * (1 + Math.ceil(slides / CONCURRENCY));
      const ideal: number[] = [];
      const real: number[] = [];
      const cpu: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        ideal.push(await timed(() => idealCalls(core, slides)));
        const run = await pipeline(core, scope, platformId, slides);
        real.push(run.ms);
        cpu.push(run.cpuMs);
      }
      const measured = median(ideal);
      const ms = median(real);
      // The goal is against the model calls as measured in this run (they include the emulator's own CPU).
      const verdict = ms <= measured * GOAL ? 'PASS' : 'MISS';
      console.log(
        `${slides} slides: pipeline ${ms.toFixed(0)} ms; ideal ${arithmetic} ms (1 + ${Math.ceil(slides / CONCURRENCY)} calls), ` +
          `measured model calls alone ${measured.toFixed(0)} ms; ` +
          `pipeline / ideal ${(ms / arithmetic).toFixed(3)}x, / measured ${(ms / measured).toFixed(3)}x ` +
          `(goal ≤ ${GOAL}x): ${verdict}; CPU in this process ${median(cpu).toFixed(0)} ms`,
      );
    }
  } finally {
    await postdeck.stop();
    await openai.stop();
  }
}

await main();
