import { POSTDECK_VERSION } from '../app/version.js';
import { ConfigError } from '../config.js';
import { startStdioBridge, type StdioBridgeOptions } from '../mcp/stdio-bridge.js';
import { settingsProblem } from '../mcp/stdio-unavailable.js';
import { loadCredentials } from './credentials.js';
import type { ClientSettings } from './login.js';

/**
 * `postdeck mcp [--server URL]`: the MCP server on stdio for desktop agents. The key is
 * POSTDECK_API_KEY when set (with --server, POSTDECK_SERVER or the default server), else the one
 * `postdeck login` stored (with its server). Only JSON-RPC goes to stdout; messages go to stderr.
 * A missing or refused key, or a server that is down, still answers the MCP handshake (see the bridge).
 */
export async function mcpCommand(
  readSettings: () => ClientSettings & { apiKey: string | undefined },
  server: string | undefined,
): Promise<void> {
  const target = await resolveTarget(readSettings, server);
  const bridge = await startStdioBridge({ ...target, version: POSTDECK_VERSION });
  // Without its server the bridge stays up and says why on every call; the log says it once.
  process.stderr.write(
    bridge.problem
      ? `Postdeck MCP (stdio) cannot serve tools: ${bridge.problem.message}\n`
      : `Postdeck MCP (stdio) is serving the tools of ${target.server}\n`,
  );
  const stop = () => void bridge.close().then(() => process.exit(0));
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * The server and key to forward to. No key at all, or settings that do not parse (a mistyped
 * POSTDECK_API_KEY in a desktop client's config), are left to the bridge to explain.
 */
async function resolveTarget(
  readSettings: () => ClientSettings & { apiKey: string | undefined },
  server: string | undefined,
): Promise<Pick<StdioBridgeOptions, 'server' | 'apiKey' | 'problem'>> {
  let settings;
  try {
    settings = readSettings();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { server: server ?? 'the server', apiKey: undefined, problem: settingsProblem(error.problems) };
  }
  if (settings.apiKey) return { server: server ?? settings.defaultServer, apiKey: settings.apiKey };
  const stored = await loadCredentials(settings.configDir);
  if (!stored) return { server: server ?? settings.defaultServer, apiKey: undefined };
  return { server: server ?? stored.server, apiKey: stored.apiKey };
}
