import { POSTDECK_VERSION } from '../app/version.js';
import { startStdioBridge } from '../mcp/stdio-bridge.js';
import { loadCredentials } from './credentials.js';
import type { ClientSettings } from './login.js';

/**
 * `postdeck mcp [--server URL]`: the MCP server on stdio for desktop agents. The key is
 * POSTDECK_API_KEY when set (with --server, POSTDECK_SERVER or the default server), else the one
 * `postdeck login` stored (with its server). Only JSON-RPC goes to stdout; messages go to stderr.
 */
export async function mcpCommand(
  settings: ClientSettings & { apiKey: string | undefined },
  server: string | undefined,
): Promise<void> {
  const target = await resolveTarget(settings, server);
  const bridge = await startStdioBridge({ ...target, version: POSTDECK_VERSION });
  process.stderr.write(`Postdeck MCP (stdio) is serving the tools of ${target.server}\n`);
  const stop = () => void bridge.close().then(() => process.exit(0));
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

async function resolveTarget(settings: ClientSettings & { apiKey: string | undefined }, server: string | undefined) {
  if (settings.apiKey) return { server: server ?? settings.defaultServer, apiKey: settings.apiKey };
  const stored = await loadCredentials(settings.configDir);
  if (!stored) throw new Error('no API key: set POSTDECK_API_KEY or run `postdeck login`');
  return { server: server ?? stored.server, apiKey: stored.apiKey };
}
