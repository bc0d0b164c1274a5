import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { startTikTokEmulator } from '../emulators/tiktok/server.js';
import { AccountSchema } from '../emulators/tiktok/state.js';
import type { Logger } from '../logger.js';
import { findRecordedEmulator, recordPath, removeEmulatorRecord, writeEmulatorRecord } from './emulator-record.js';
import { startOnKeptPort } from './tiktok-emulator-port.js';
import { TIKTOK_CALLBACK_PATH, type EmulatorHosts } from './tiktok-setup.js';

/** What `DATA_DIR/tiktok-emulator-url.json` records, so the admin CLI and other processes find the emulator. */
export interface EmulatorRecord extends EmulatorHosts {
  pid: number;
  startedAt: string;
}

/** The emulator this process uses; `stop` ends it only when this process started it. */
export interface LocalTikTokEmulator extends EmulatorHosts {
  owned: boolean;
  stop(): Promise<void>;
}

/** Where the running emulator's hosts are recorded. */
export function emulatorRecordPath(dataDir: string): string {
  return recordPath(dataDir, 'tiktok');
}

/**
 * Starts the built-in TikTok emulator for `npm start` without TikTok credentials, or joins the
 * one another Postdeck process of this DATA_DIR runs (an api and a worker process must share one,
 * since its state file has one writer). Its accounts and grants persist in
 * `DATA_DIR/tiktok-emulator.json`, so a connected emulated account keeps working after a restart,
 * and it keeps its port across restarts (`tiktok-emulator-port.ts`), so its links do too.
 */
export async function startLocalTikTokEmulator(config: Config, logger: Logger): Promise<LocalTikTokEmulator> {
  const running = await findRunningTikTokEmulator(config.dataDir);
  if (running) {
    logger.info(
      { url: running.apiUrl },
      'TikTok emulator in use (run by another Postdeck process): nothing reaches TikTok',
    );
    return { ...running, owned: false, stop: () => Promise.resolve() };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const redirectUri = `${config.publicUrl}${TIKTOK_CALLBACK_PATH}`;
  const emulator = await startOnKeptPort(config.dataDir, config.tiktokEmulator.port, logger, (port) =>
    startTikTokEmulator({
      port,
      host: config.host,
      dataFile: path.join(config.dataDir, 'tiktok-emulator.json'),
      redirectUris: [redirectUri],
      // The emulator pulls media from Postdeck's own public URLs, which are plain http locally.
      verifiedUrlPrefixes: [`${config.media.publicBaseUrl}/`],
      allowHttpPullUrls: true,
    }),
  );
  if (emulator.control.accounts.size === 0) {
    // One account from the first start, so "Connect TikTok" works out of the box.
    const account = AccountSchema.parse({ displayName: 'Emulated Creator', username: 'emulated.creator' });
    emulator.control.accounts.set(account.openId, account);
    emulator.control.save();
  }
  const hosts = { ...emulatorHosts(emulator.url, config), redirectUri };
  writeEmulatorRecord(config.dataDir, 'tiktok', { ...hosts, pid: process.pid, startedAt: new Date().toISOString() });
  logger.info(
    { url: hosts.apiUrl },
    'TikTok emulator in use (no TIKTOK_CLIENT_KEY set): accounts are emulated and posts go nowhere real',
  );
  let stopping: Promise<void> | undefined;
  return {
    ...hosts,
    owned: true,
    stop() {
      stopping ??= (async () => {
        removeEmulatorRecord(config.dataDir, 'tiktok');
        await emulator.stop();
      })();
      return stopping;
    },
  };
}

/** The TikTok emulator recorded for `dataDir` when its process is alive and its control API answers; else null. */
export function findRunningTikTokEmulator(dataDir: string): Promise<EmulatorRecord | null> {
  return findRecordedEmulator<EmulatorHosts>(dataDir, 'tiktok');
}

/**
 * The hosts of an emulator listening at `url`. A wildcard listen address is no place to send a browser: the
 * consent page is then offered at PUBLIC_URL's host name (on the emulator's port), server calls go over loopback.
 */
export function emulatorHosts(url: string, config: Config): EmulatorHosts {
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  if (!wildcard) return { apiUrl: url, authUrl: url };
  const api = new URL(url);
  api.hostname = config.host === '::' ? '[::1]' : '127.0.0.1';
  const auth = new URL(url);
  auth.hostname = new URL(config.publicUrl).hostname;
  return { apiUrl: api.origin, authUrl: auth.origin };
}
