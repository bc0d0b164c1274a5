import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { DEFAULT_EMULATOR_OPTIONS } from '../emulators/tiktok/options.js';
import { startTikTokEmulator } from '../emulators/tiktok/server.js';
import { AccountSchema } from '../emulators/tiktok/state.js';
import { findRunningTikTokEmulator } from '../app/tiktok-emulator.js';
import { TIKTOK_CALLBACK_PATH } from '../app/tiktok-setup.js';

/** The emulator's port when `--port` is not given (Postdeck itself defaults to 8080). */
export const DEFAULT_EMULATOR_PORT = 8090;

/**
 * `postdeck emulate tiktok [--port N] [--host H] [--data-file F] [--pull-via URL]`: runs the local TikTok
 * emulator on its own, registered for this Postdeck's callback URL and trusting its public media URLs for
 * PULL_FROM_URL (fetched from Postdeck at `--pull-via` when given: in Docker, the api service), with state in a
 * data file (default `DATA_DIR/tiktok-emulator.json`). Runs until SIGINT or SIGTERM.
 */
export async function emulateTikTokCommand(flags: {
  port?: string;
  host?: string;
  dataFile?: string;
  pullVia?: string;
}): Promise<void> {
  const config = loadConfig(process.env);
  const port = flags.port === undefined ? DEFAULT_EMULATOR_PORT : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error('--port must be a port number (0 picks a free one)');
  const host = flags.host ?? '127.0.0.1';
  const dataFile = path.resolve(flags.dataFile ?? path.join(config.dataDir, 'tiktok-emulator.json'));
  // The state file has one writer: a running Postdeck's built-in emulator of this DATA_DIR owns the default one.
  const builtIn = await findRunningTikTokEmulator(config.dataDir);
  if (builtIn && dataFile === path.resolve(config.dataDir, 'tiktok-emulator.json')) {
    throw new Error(
      `a Postdeck process (pid ${builtIn.pid}) already runs the TikTok emulator of this DATA_DIR at ${builtIn.apiUrl}; ` +
        'use that one, or pass --data-file for a separate emulator',
    );
  }
  const pullVia = flags.pullVia === undefined ? undefined : URL.parse(flags.pullVia)?.origin;
  if (flags.pullVia !== undefined && !pullVia?.startsWith('http')) {
    throw new Error("--pull-via must be Postdeck's http(s) address as the emulator reaches it, e.g. http://api:8080");
  }
  mkdirSync(path.dirname(dataFile), { recursive: true });
  const redirectUri = `${config.publicUrl}${TIKTOK_CALLBACK_PATH}`;
  const mediaPrefix = `${config.media.publicBaseUrl}/m/`;
  const emulator = await startTikTokEmulator({
    port,
    host,
    dataFile,
    redirectUris: [redirectUri],
    verifiedUrlPrefixes: [mediaPrefix],
    // Local Postdeck serves media over http; real TikTok pulls https only.
    allowHttpPullUrls: mediaPrefix.startsWith('http:'),
    // Postdeck serves /m/ at its root, whatever PUBLIC_BASE_URL says.
    pullVia: pullVia ? { from: mediaPrefix, to: `${pullVia}/m/` } : undefined,
  });
  const state = emulator.control;
  // A first start gets one creator, so the consent page has someone to authorize as.
  if (state.accounts.size === 0) {
    const account = AccountSchema.parse({ displayName: 'Emulated Creator', username: 'emulated.creator' });
    state.accounts.set(account.openId, account);
    state.save();
  }
  process.stdout.write(
    `TikTok emulator listening on ${emulator.url}\n` +
      `This is a local emulator of TikTok's login, Content Posting API and Display API reads, not TikTok: nothing is posted anywhere.\n` +
      `  client key:     ${DEFAULT_EMULATOR_OPTIONS.clientKey}\n` +
      `  client secret:  ${DEFAULT_EMULATOR_OPTIONS.clientSecret}\n` +
      `  redirect URI:   ${redirectUri}\n` +
      `  pull prefix:    ${mediaPrefix}${pullVia ? ` (fetched from ${pullVia})` : ''}\n` +
      `  data file:      ${dataFile}\n` +
      `  control API:    ${emulator.url}/__control/accounts\n` +
      `Point Postdeck at it (and leave TIKTOK_CLIENT_KEY/SECRET unset):\n` +
      `  TIKTOK_EMULATOR_URL=${emulator.url}\n`,
  );
  const shutdown = () => {
    emulator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
