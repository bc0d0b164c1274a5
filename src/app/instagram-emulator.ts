import { mkdirSync } from 'node:fs';
import type { Config } from '../config.js';
import { startInstagramEmulator } from '../emulators/instagram/server.js';
import { AccountSchema } from '../emulators/instagram/state.js';
import type { Logger } from '../logger.js';
import {
  findRecordedEmulator,
  removeEmulatorRecord,
  writeEmulatorRecord,
  type EmulatorRecordOf,
  type RecordedHosts,
} from './emulator-record.js';
import { INSTAGRAM_CALLBACK_PATH } from './instagram-setup.js';
import { emulatorHosts } from './tiktok-emulator.js';
import { startOnKeptPort } from './tiktok-emulator-port.js';

/** The Instagram emulator this process uses; `stop` ends it only when this process started it. */
export interface LocalInstagramEmulator extends RecordedHosts {
  owned: boolean;
  stop(): Promise<void>;
}

const NAME = 'instagram';

/** The Instagram emulator recorded for `dataDir` when its process is alive and it answers; else null. */
export function findRunningInstagramEmulator(dataDir: string): Promise<EmulatorRecordOf<RecordedHosts> | null> {
  return findRecordedEmulator<RecordedHosts>(dataDir, NAME);
}

/**
 * Starts the built-in Instagram emulator for a server without INSTAGRAM_APP_ID, or joins the one another Postdeck
 * process of this DATA_DIR runs, as the TikTok emulator does. It keeps its port across restarts, not its state:
 * emulated accounts are connected again after a restart of the process that runs it.
 */
export async function startLocalInstagramEmulator(config: Config, logger: Logger): Promise<LocalInstagramEmulator> {
  const running = await findRunningInstagramEmulator(config.dataDir);
  if (running) {
    logger.info({ url: running.apiUrl }, 'Instagram emulator in use (run by another Postdeck process)');
    return { ...running, owned: false, stop: () => Promise.resolve() };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const redirectUri = `${config.publicUrl}${INSTAGRAM_CALLBACK_PATH}`;
  const emulator = await startOnKeptPort(
    config.dataDir,
    config.instagram.emulatorPort,
    logger,
    (port) => startInstagramEmulator({ port, host: config.host, redirectUris: [redirectUri] }),
    { name: NAME, label: 'Instagram', portVariable: 'INSTAGRAM_EMULATOR_PORT' },
  );
  // One professional account, so "Connect Instagram" works out of the box.
  const account = AccountSchema.parse({ username: 'emulated.creator', name: 'Emulated Creator' });
  emulator.control.accounts.set(account.id, account);
  const hosts = { ...emulatorHosts(emulator.url, config), redirectUri };
  writeEmulatorRecord(config.dataDir, NAME, { ...hosts, pid: process.pid, startedAt: new Date().toISOString() });
  logger.info(
    { url: hosts.apiUrl },
    'Instagram emulator in use (no INSTAGRAM_APP_ID set): accounts are emulated and posts go nowhere real',
  );
  let stopping: Promise<void> | undefined;
  return {
    ...hosts,
    owned: true,
    stop() {
      stopping ??= (async () => {
        removeEmulatorRecord(config.dataDir, NAME);
        await emulator.close();
      })();
      return stopping;
    },
  };
}
