import type { AiProviderConfig } from '../../src/core/providers/openai/config.js';
import type { PlanTable } from '../../src/core/plans.js';
import { startOpenAiEmulator, type RunningOpenAiEmulator } from '../../src/emulators/openai/server.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { startTestServer, type TestServer } from './http.js';
import { startInstagramFixture, type InstagramFixture } from './instagram.js';
import { connectedTenant } from './posts.js';
import { startTikTokFixture, type TikTokFixture } from './tiktok.js';

/** Provider settings aimed at an OpenAI emulator: few, quick retries so failure tests stay short. */
export function emulatorAiConfig(
  openai: RunningOpenAiEmulator,
  overrides: Partial<AiProviderConfig> = {},
): AiProviderConfig {
  return {
    apiKey: 'sk-test-emulator',
    baseUrl: openai.baseUrl,
    textModel: 'gpt-4.1-mini',
    imageModel: 'gpt-image-1',
    imageQuality: 'low',
    textTimeoutMs: 2_000,
    imageTimeoutMs: 2_000,
    attempts: 3,
    maxRetryWaitMs: 3_000,
    emulated: true,
    ...overrides,
  };
}

/** What the AI tests stand on: both emulators, a database whose clients reach them, a server and a worker. */
export interface AiStack {
  f: TikTokFixture;
  openai: RunningOpenAiEmulator;
  /** The Instagram emulator, when the stack was started with `instagram: true`. */
  ig: InstagramFixture | undefined;
  t: TestDatabase;
  server: TestServer;
  stop(): Promise<void>;
}

export async function startAiStack(
  options: {
    plans?: PlanTable;
    ai?: Partial<AiProviderConfig>;
    worker?: boolean;
    /** Also run the Instagram emulator (`ig`), the server's Instagram provider pointed at it. */
    instagram?: boolean;
  } = {},
): Promise<AiStack> {
  const [f, openai, ig] = await Promise.all([
    startTikTokFixture(),
    startOpenAiEmulator(),
    options.instagram ? startInstagramFixture() : undefined,
  ]);
  const t = await openTestDatabase({
    tiktok: f.config,
    plans: options.plans,
    ai: emulatorAiConfig(openai, options.ai),
    ...(ig ? { instagram: ig.config } : {}),
  });
  const server = await startTestServer(t);
  if (options.worker !== false) await t.startWorker();
  return {
    f,
    openai,
    ig,
    t,
    server,
    async stop() {
      await server.stop();
      await t.close();
      await openai.stop();
      await f.emulator.stop();
      await ig?.close();
    },
  };
}

/** The plans the AI tests switch between: a free plan with no image credits, a creator plan with some. */
export const FREE_AND_CREATOR_PLANS = {
  free: { captionCredits: 20, imageCredits: 0, monthlyPosts: 30 },
  creator: { captionCredits: 50, imageCredits: 50, monthlyPosts: 50 },
} satisfies PlanTable;

/** A new tenant with a connected TikTok account, on the creator plan. */
export async function creatorTenant(stack: AiStack) {
  const { tenant, platform } = await connectedTenant(stack.t, stack.f);
  await stack.t.db.collection('accounts').updateOne({ _id: tenant.accountId as never }, { $set: { plan: 'creator' } });
  return { tenant, platform };
}
