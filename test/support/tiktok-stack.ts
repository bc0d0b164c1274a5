import type { PlanTable } from '../../src/core/plans.js';
import type { EmulatorSettings } from '../../src/emulators/tiktok/options.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { startTestServer, type TestServer } from './http.js';
import { startTikTokFixture, type TikTokFixture } from './tiktok.js';

/** What the HTTP tests of TikTok features stand on: the emulator, a database whose client talks to it, a server. */
export interface TikTokStack {
  f: TikTokFixture;
  t: TestDatabase;
  server: TestServer;
  stop(): Promise<void>;
}

/**
 * `emulatorClient`: the client knows it talks to the emulator, as under `npm start` without TikTok credentials.
 * `analytics`: the client's TIKTOK_ANALYTICS; `emulator`: the emulated app's registration.
 */
export async function startTikTokStack(
  options: { plans?: PlanTable; emulatorClient?: boolean; analytics?: boolean; emulator?: EmulatorSettings } = {},
): Promise<TikTokStack> {
  const f = await startTikTokFixture(options.emulator);
  const t = await openTestDatabase({
    tiktok: {
      ...f.config,
      ...(options.emulatorClient ? { emulator: true } : {}),
      ...(options.analytics === undefined ? {} : { analytics: options.analytics }),
    },
    plans: options.plans,
  });
  const server = await startTestServer(t);
  return {
    f,
    t,
    server,
    async stop() {
      await server.stop();
      await t.close();
      await f.emulator.stop();
    },
  };
}
