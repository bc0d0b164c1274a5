import { parseArgs } from 'node:util';
import type { ClientSettings } from './login.js';
import { reportCliError } from './runtime.js';
import { loadConfig } from '../config.js';

// Each command's module is loaded when it runs: loading all of them (the whole server) takes about a
// second, which a health check run every few seconds should not pay.
const admin = () => import('./admin.js');

const USAGE = `Usage: postdeck <command>

Commands:
  serve [--role all|api|worker]     run Postdeck (default: all roles in one process)
  admin bootstrap [--json] [--workspace NAME] [--plan PLAN]
                                    mint an API key for the install's workspace (or the one named; made if missing)
  admin set-plan --plan PLAN [--workspace ID]
                                    move the install's (or the named) workspace's account to a plan
  admin probe-worker [--hold-ms N] [--timeout-ms N]
                                    send a job through the queue and wait for a worker
  admin worker-health [--max-age-ms N]
                                    exit 0 if this host's worker beat lately (its health check; no HTTP)
  admin connect-emulated-tiktok [--workspace ID] [--private] [--json]
                                    connect a new emulated TikTok account (built-in emulator only)
  admin connect-emulated-instagram [--workspace ID] [--json]
                                    connect a new emulated Instagram account (emulator only)
  login [--server URL]              get an API key through the browser (device flow) and store it
  whoami [--show-key]               show the server, workspace and key you are logged in with;
                                    --show-key prints only the key, for scripts and curl
  logout                            revoke the stored key and forget it
  mcp [--server URL]                the MCP server on stdio for desktop agents (key: POSTDECK_API_KEY or login's)
  try-bots                          run Postdeck (as serve does) with its Slack and Discord bots wired to
                                    local emulators, and print the channel pages to try them in a browser
  emulate tiktok [--port N] [--host H] [--data-file F] [--pull-via URL]
                                    run the local TikTok emulator (for development, tests and Docker)
  emulate instagram [--port N] [--host H]
                                    run the local Instagram emulator (then set INSTAGRAM_EMULATOR_URL)
  emulator advance DURATION         age the TikTok emulator's posts by DURATION (30m, 2h, 1d, 1d12h) so their
                                    counts grow, and list the newest posts with their counts
  discord register-commands [--guild ID]
                                    register /postdeck with Discord (one server, or globally)
  help                              show this text

Settings come from the environment (and .env); see the README.
`;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string', default: 'all' },
      json: { type: 'boolean', default: false },
      workspace: { type: 'string' },
      plan: { type: 'string' },
      'hold-ms': { type: 'string', default: '0' },
      private: { type: 'boolean', default: false },
      'timeout-ms': { type: 'string', default: '30000' },
      'max-age-ms': { type: 'string' },
      server: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'data-file': { type: 'string' },
      'pull-via': { type: 'string' },
      guild: { type: 'string' },
      'show-key': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals[0] === 'emulator' ? positionals.slice(0, 2).join(' ') : positionals.join(' ');
  if (values.help || command === 'help' || command === '') {
    process.stdout.write(USAGE);
    return;
  }
  switch (command) {
    case 'serve':
      await (await import('./serve.js')).serveCommand(values.role);
      return;
    case 'try-bots':
      return (await import('./try-bots.js')).tryBotsCommand();
    case 'admin set-plan':
      return (await admin()).setPlanCommand({ workspace: values.workspace, plan: values.plan });
    case 'admin bootstrap':
      return (await admin()).bootstrapCommand({ workspace: values.workspace, plan: values.plan, json: values.json });
    case 'admin connect-emulated-tiktok':
      return (await admin()).connectEmulatedTikTokCommand({
        workspace: values.workspace,
        private: values.private,
        json: values.json,
      });
    case 'admin connect-emulated-instagram':
      return (await import('./instagram.js')).connectEmulatedInstagramCommand({
        workspace: values.workspace,
        json: values.json,
      });
    case 'admin probe-worker':
      return (await admin()).probeWorkerCommand({
        holdMs: Number(values['hold-ms']),
        timeoutMs: Number(values['timeout-ms']),
      });
    case 'admin worker-health':
      return (await import('./worker-health.js')).workerHealthCommand({ maxAgeMs: values['max-age-ms'] });
    case 'login':
      return (await import('./login.js')).loginCommand(clientSettings(), values.server);
    case 'whoami':
      return (await import('./login.js')).whoamiCommand(clientSettings(), { showKey: values['show-key'] });
    case 'logout':
      return (await import('./login.js')).logoutCommand(clientSettings());
    case 'mcp':
      return (await import('./mcp.js')).mcpCommand(
        () => ({ ...clientSettings(), apiKey: loadConfig(process.env).client.apiKey }),
        values.server,
      );
    case 'emulate tiktok':
      return (await import('./emulate.js')).emulateTikTokCommand({
        port: values.port,
        host: values.host,
        dataFile: values['data-file'],
        pullVia: values['pull-via'],
      });
    case 'emulate instagram':
      return (await import('./instagram.js')).emulateInstagramCommand({ port: values.port, host: values.host });
    case 'emulator advance':
      if (positionals.length !== 3) throw new Error(`emulator advance takes one duration, such as 2h\n\n${USAGE}`);
      return (await import('./emulator-clock.js')).advanceEmulatorCommand(positionals[2]);
    case 'discord register-commands':
      return (await import('./discord.js')).registerDiscordCommandsCommand({ guild: values.guild });
    default:
      throw new Error(`unknown command "${command}"\n\n${USAGE}`);
  }
}

function clientSettings(): ClientSettings {
  const { client } = loadConfig(process.env);
  return {
    configDir: client.configDir,
    defaultServer: client.defaultServer,
    canOpenBrowser: !client.ci && Boolean(process.stdout.isTTY),
  };
}

main(process.argv.slice(2)).catch(reportCliError);
