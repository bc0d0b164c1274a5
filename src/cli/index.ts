import { parseArgs } from 'node:util';
import { bootstrapCommand, connectEmulatedTikTokCommand, probeWorkerCommand, setPlanCommand } from './admin.js';
import { loginCommand, logoutCommand, whoamiCommand, type ClientSettings } from './login.js';
import { registerDiscordCommandsCommand } from './discord.js';
import { emulateTikTokCommand } from './emulate.js';
import { mcpCommand } from './mcp.js';
import { reportCliError } from './runtime.js';
import { loadConfig } from '../config.js';
import { serveCommand } from './serve.js';

const USAGE = `Usage: postdeck <command>

Commands:
  serve [--role all|api|worker]     run Postdeck (default: all roles in one process)
  admin bootstrap [--json] [--workspace NAME] [--plan PLAN]
                                    mint an API key for the install's workspace (or the one named; made if missing)
  admin set-plan --plan PLAN [--workspace ID]
                                    move the install's (or the named) workspace's account to a plan
  admin probe-worker [--hold-ms N] [--timeout-ms N]
                                    send a job through the queue and wait for a worker
  admin connect-emulated-tiktok [--workspace ID] [--private] [--json]
                                    connect a new emulated TikTok account (built-in emulator only)
  login [--server URL]              get an API key through the browser (device flow) and store it
  whoami [--show-key]               show the server, workspace and key you are logged in with;
                                    --show-key prints only the key, for scripts and curl
  logout                            revoke the stored key and forget it
  mcp [--server URL]                the MCP server on stdio for desktop agents (key: POSTDECK_API_KEY or login's)
  emulate tiktok [--port N] [--host H] [--data-file F]
                                    run the local TikTok emulator (for development and tests)
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
      server: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'data-file': { type: 'string' },
      guild: { type: 'string' },
      'show-key': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals.join(' ');
  if (values.help || command === 'help' || command === '') {
    process.stdout.write(USAGE);
    return;
  }
  switch (command) {
    case 'serve':
      return serveCommand(values.role);
    case 'admin set-plan':
      return setPlanCommand({ workspace: values.workspace, plan: values.plan });
    case 'admin bootstrap':
      return bootstrapCommand({ workspace: values.workspace, plan: values.plan, json: values.json });
    case 'admin connect-emulated-tiktok':
      return connectEmulatedTikTokCommand({ workspace: values.workspace, private: values.private, json: values.json });
    case 'admin probe-worker':
      return probeWorkerCommand({ holdMs: Number(values['hold-ms']), timeoutMs: Number(values['timeout-ms']) });
    case 'login':
      return loginCommand(clientSettings(), values.server);
    case 'whoami':
      return whoamiCommand(clientSettings(), { showKey: values['show-key'] });
    case 'logout':
      return logoutCommand(clientSettings());
    case 'mcp':
      return mcpCommand({ ...clientSettings(), apiKey: loadConfig(process.env).client.apiKey }, values.server);
    case 'emulate tiktok':
      return emulateTikTokCommand({ port: values.port, host: values.host, dataFile: values['data-file'] });
    case 'discord register-commands':
      return registerDiscordCommandsCommand({ guild: values.guild });
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
