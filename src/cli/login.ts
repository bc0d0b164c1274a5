import { spawn } from 'node:child_process';
import os from 'node:os';
import { loadCredentials, removeCredentials, saveCredentials } from './credentials.js';
import { pollDeviceLogin, startDeviceLogin } from './device-login.js';
import { startSpinner } from './spinner.js';
import { fetchServer } from './server-fetch.js';

/** Where the client keeps its key and which server it talks to by default. */
export interface ClientSettings {
  configDir: string;
  defaultServer: string;
  /** May the CLI open a browser (an interactive terminal, not CI)? */
  canOpenBrowser: boolean;
}

interface KeyDescription {
  keyId: string;
  prefix: string;
  workspace: { id: string; name: string };
}

/**
 * `postdeck login [--server URL]`: the device flow the way `gh auth login` runs it. Prints the
 * code and link, opens the browser when it can, polls, and stores the key (0600).
 */
export async function loginCommand(settings: ClientSettings, serverOption: string | undefined): Promise<void> {
  const server = serverOption ?? settings.defaultServer;
  const start = await startDeviceLogin(server, `postdeck CLI on ${os.hostname()}`);
  process.stderr.write(
    `\nTo log in, confirm this code in your browser.\n\nCode: ${start.user_code}\nOpen: ${start.verification_uri_complete}\n\n`,
  );
  if (settings.canOpenBrowser) openBrowser(start.verification_uri_complete);

  const spinner = startSpinner(process.stderr, 'Waiting for approval…');
  const outcome = await pollDeviceLogin(server, start, (left) =>
    spinner.update(`Waiting for approval… (code expires in ${Math.ceil(left / 60)} min)`),
  ).finally(() => spinner.stop());

  if (outcome.status === 'denied') throw new Error('access denied: the login was refused in the browser');
  if (outcome.status === 'expired')
    throw new Error('the code expired before it was approved; run `postdeck login` again');

  const key = await describeKey(server, outcome.apiKey);
  await saveCredentials(settings.configDir, {
    server,
    apiKey: outcome.apiKey,
    workspaceId: key.workspace.id,
    workspaceName: key.workspace.name,
    savedAt: new Date().toISOString(),
  });
  process.stderr.write(`Logged in to workspace ${key.workspace.name} on ${server}\n`);
}

/** `postdeck whoami [--show-key]`: which server, workspace and key the stored credentials stand for, or the key itself. */
export async function whoamiCommand(settings: ClientSettings, options: { showKey?: boolean } = {}): Promise<void> {
  const credentials = await requireCredentials(settings);
  if (options.showKey) {
    // Only the key on stdout, so `$(node bin/postdeck.js whoami --show-key)` works in a shell.
    process.stdout.write(`${credentials.apiKey}\n`);
    return;
  }
  const key = await describeKey(credentials.server, credentials.apiKey);
  process.stdout.write(
    `${credentials.server}: workspace ${key.workspace.name} (${key.workspace.id}), key ${key.prefix}…\n`,
  );
}

/** `postdeck logout`: revokes the stored key on the server, then forgets it. */
export async function logoutCommand(settings: ClientSettings): Promise<void> {
  const credentials = await requireCredentials(settings);
  const response = await fetchServer(new URL('/auth/key', credentials.server), {
    method: 'DELETE',
    headers: { authorization: `Bearer ${credentials.apiKey}` },
  });
  // A key that is already invalid is as good as revoked.
  if (!response.ok && response.status !== 401)
    throw new Error(`the server did not revoke the key (HTTP ${response.status})`);
  await removeCredentials(settings.configDir);
  process.stderr.write(`Logged out of ${credentials.server}; the key is revoked.\n`);
}

async function requireCredentials(settings: ClientSettings) {
  const credentials = await loadCredentials(settings.configDir);
  if (!credentials) throw new Error('not logged in; run `postdeck login`');
  return credentials;
}

async function describeKey(server: string, apiKey: string): Promise<KeyDescription> {
  const response = await fetchServer(new URL('/auth/key', server), { headers: { authorization: `Bearer ${apiKey}` } });
  if (response.status === 401) throw new Error('the stored key is no longer valid; run `postdeck login`');
  if (!response.ok) throw new Error(`the server did not describe the key (HTTP ${response.status})`);
  return (await response.json()) as KeyDescription;
}

// Best effort: a missing opener is fine, the link is printed anyway.
function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}
