import { randomBytes, randomUUID } from 'node:crypto';
import { openCore } from '../app/main.js';
import {
  externalInstagramEmulator,
  INSTAGRAM_CALLBACK_PATH,
  instagramClientConfig,
  usesInstagramEmulator,
} from '../app/instagram-setup.js';
import { findRunningInstagramEmulator } from '../app/instagram-emulator.js';
import { installWorkspace } from '../core/tenancy/onboarding.js';
import { toPlatform } from '../core/platforms/list-platforms.js';
import { systemScopeFor } from '../core/platforms/system-scope.js';
import { DEFAULT_INSTAGRAM_OPTIONS } from '../emulators/instagram/options.js';
import { startInstagramEmulator } from '../emulators/instagram/server.js';
import { AccountSchema } from '../emulators/instagram/state.js';
import { loadConfig } from '../config.js';
import { cliRuntime } from './runtime.js';

/**
 * `postdeck admin connect-emulated-instagram [--workspace ID] [--json]`: creates a professional account in the
 * running server's Instagram emulator and connects it to the workspace through the web page's path (state,
 * consent page, code exchange, long-lived token, profile), then prints the platform.
 */
export async function connectEmulatedInstagramCommand(options: { workspace: string | undefined; json: boolean }) {
  const { config, logger } = cliRuntime({ logsTo: 'stderr', level: 'warn' });
  if (!usesInstagramEmulator(config)) {
    throw new Error(
      'An Instagram app is set (INSTAGRAM_APP_ID): this server talks to the real Instagram, so there is no emulator to connect an account from',
    );
  }
  // This command plays the browser from where it runs, which reaches the emulator at its server address.
  const found = externalInstagramEmulator(config) ?? (await findRunningInstagramEmulator(config.dataDir));
  if (!found) {
    throw new Error(`no Instagram emulator is running for ${config.dataDir}: start Postdeck first (npm start)`);
  }
  const emulator = { ...found, authUrl: found.apiUrl };
  const core = await openCore(config, logger, { instagram: instagramClientConfig(config, emulator) });
  try {
    const workspace = options.workspace ?? (await installWorkspace(core.deps))?.workspace._id;
    if (!workspace)
      throw new Error('this install has no workspace yet: sign up at /signup, or name one with --workspace');
    const scope = await systemScopeFor(core.deps, workspace);
    const suffix = randomBytes(3).toString('hex');
    const created = await fetch(`${emulator.apiUrl}/__control/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: `emulated.${suffix}`, name: `Emulated Creator ${suffix}` }),
    });
    if (created.status !== 201)
      throw new Error(`the Instagram emulator refused a new account (HTTP ${created.status})`);
    const account = (await created.json()) as { id: string };
    const provider = core.deps.providers.of({ provider: 'instagram' });
    const binding = `cli:${randomUUID()}`;
    const started = await provider.connect.start(core.deps, scope, { binding });
    const callback = await allowOnEmulator(started.authorizeUrl, account.id);
    const result = await provider.connect.complete(
      core.deps,
      {
        state: callback.get('state') ?? '',
        code: callback.get('code') ?? undefined,
        error: callback.get('error') ?? undefined,
        errorDescription: callback.get('error_description') ?? undefined,
      },
      binding,
    );
    if (result.outcome === 'cancelled') throw new Error(`the emulator refused the connection: ${result.description}`);
    if (result.warning) process.stderr.write(`Warning: ${result.warning}\n`);
    const platform = toPlatform(result.platform, core.deps.providers);
    process.stdout.write(
      options.json
        ? `${JSON.stringify(platform)}\n`
        : `Connected emulated Instagram account ${platform.displayName ?? ''} (@${platform.displayHandle ?? ''}) as platform ${platform.id}\n`,
    );
  } finally {
    await core.close();
  }
}

/** Presses Allow for `accountId` on the emulator's consent page; answers the callback's query (not visited). */
async function allowOnEmulator(authorizeUrl: string, accountId: string): Promise<URLSearchParams> {
  const form = new URLSearchParams(new URL(authorizeUrl).search);
  form.set('account_id', accountId);
  form.set('decision', 'allow');
  const answer = await fetch(new URL('/oauth/authorize', authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  const location = answer.headers.get('location');
  if (answer.status !== 302 || !location) throw new Error(`the emulator's consent page answered ${answer.status}`);
  return new URL(location).searchParams;
}

/**
 * `postdeck emulate instagram [--port N] [--host H]`: runs the local Instagram emulator on its own, registered for
 * this Postdeck's callback URL, with one professional account. Its state lives in memory. Runs until SIGINT or SIGTERM.
 */
export async function emulateInstagramCommand(flags: { port?: string; host?: string }): Promise<void> {
  const config = loadConfig(process.env);
  const port = flags.port === undefined ? 8091 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error('--port must be a port number (0 picks a free one)');
  }
  const redirectUri = `${config.publicUrl}${INSTAGRAM_CALLBACK_PATH}`;
  const emulator = await startInstagramEmulator({ port, host: flags.host ?? '127.0.0.1', redirectUris: [redirectUri] });
  const account = AccountSchema.parse({ username: 'emulated.creator', name: 'Emulated Creator' });
  emulator.control.accounts.set(account.id, account);
  process.stdout.write(
    `Instagram emulator listening on ${emulator.url}\n` +
      "This is a local emulator of Instagram's login and publishing API, not Instagram: nothing is posted anywhere.\n" +
      `  app id:         ${DEFAULT_INSTAGRAM_OPTIONS.appId}\n` +
      `  app secret:     ${DEFAULT_INSTAGRAM_OPTIONS.appSecret}\n` +
      `  redirect URI:   ${redirectUri}\n` +
      `  control API:    ${emulator.url}/__control/accounts\n` +
      'Point Postdeck at it (and leave INSTAGRAM_APP_ID/SECRET unset):\n' +
      `  INSTAGRAM_EMULATOR_URL=${emulator.url}\n`,
  );
  const shutdown = () => {
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
