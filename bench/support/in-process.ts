import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aiProviderConfig } from '../../src/app/openai-setup.js';
import { openCore, type Core } from '../../src/app/main.js';
import { TIKTOK_CALLBACK_PATH, tiktokClientConfig } from '../../src/app/tiktok-setup.js';
import { authorizeOnEmulator, createEmulatedAccount } from '../../src/cli/emulator-consent.js';
import { loadConfig } from '../../src/config.js';
import type { Scope } from '../../src/core/context.js';
import { systemScopeFor } from '../../src/core/platforms/system-scope.js';
import { completeTikTokConnection, startTikTokConnection } from '../../src/core/providers/tiktok/connect/connect.js';
import { bootstrapTenant } from '../../src/core/tenancy/bootstrap.js';
import type { EmulatorSettings } from '../../src/emulators/tiktok/options.js';
import { startTikTokEmulator } from '../../src/emulators/tiktok/server.js';
import { createLogger } from '../../src/logger.js';
import { openBenchDatabase } from './cluster.js';

/** Postdeck's core in this process on the embedded database, its TikTok client aimed at an emulator here. */
export interface InProcessPostdeck {
  core: Core;
  publicUrl: string;
  /** A team-plan workspace with connected emulated TikTok accounts (one unless asked), their ids in order. */
  workspace(accounts?: number): Promise<{ scope: Scope; apiKey: string; platformIds: string[] }>;
  stop(): Promise<void>;
}

export async function startInProcess(
  name: string,
  options: { openaiBaseUrl?: string; env?: Record<string, string>; tiktok?: EmulatorSettings } = {},
): Promise<InProcessPostdeck> {
  const work = mkdtempSync(path.join(os.tmpdir(), `postdeck-bench-${name}-`));
  const database = await openBenchDatabase(work);
  const publicUrl = 'http://127.0.0.1:9';
  const tiktok = await startTikTokEmulator({
    port: 0,
    host: '127.0.0.1',
    redirectUris: [`${publicUrl}${TIKTOK_CALLBACK_PATH}`],
    mediaDir: path.join(work, 'emulator-media'),
    ...options.tiktok,
  });
  const config = loadConfig(
    {
      MONGODB_URI: database.uri,
      MONGODB_DB: `bench_${randomUUID().slice(0, 8)}`,
      DATA_DIR: path.join(work, 'data'),
      PUBLIC_URL: publicUrl,
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...options.env,
    },
    { envFile: path.join(work, 'no.env') },
  );
  const core = await openCore(config, createLogger({ level: 'warn', destination: process.stderr }), {
    tiktok: tiktokClientConfig(config, { authUrl: tiktok.url, apiUrl: tiktok.url }),
    ai: aiProviderConfig(config, options.openaiBaseUrl),
  });
  return {
    core,
    publicUrl,
    async workspace(accounts = 1) {
      const boot = await bootstrapTenant(core.deps, { workspaceName: `bench-${name}`, plan: 'team' });
      const scope = await systemScopeFor(core.deps, boot.workspaceId);
      const platformIds: string[] = [];
      for (let i = 0; i < accounts; i++) {
        const account = await createEmulatedAccount(tiktok.url, { private: false });
        const started = await startTikTokConnection(core.deps, scope, { binding: 'bench' });
        const callback = (await authorizeOnEmulator(started.authorizeUrl, account.openId)).searchParams;
        const connected = await completeTikTokConnection(
          core.deps,
          { state: callback.get('state') ?? '', code: callback.get('code') ?? undefined },
          'bench',
        );
        if (connected.outcome !== 'connected') throw new Error(`connecting failed: ${connected.description}`);
        platformIds.push(connected.platform._id);
      }
      return { scope, apiKey: boot.apiKey, platformIds };
    },
    async stop() {
      await core.close();
      await tiktok.stop();
      await database.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
