import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ENTRY } from './spawn.js';

/**
 * `postdeck mcp` spawned as a desktop agent runs it (the built entry point), forwarding to `serverUrl`
 * with `apiKey`; `home` keeps its config apart. `stderr: 'pipe'` when the test reads what it logs.
 */
export function postdeckMcpTransport(
  apiKey: string,
  serverUrl: string,
  home: string,
  stderr: 'pipe' | 'inherit' = 'inherit',
): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [ENTRY, 'mcp'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      POSTDECK_CONFIG_DIR: path.join(home, 'config'),
      POSTDECK_API_KEY: apiKey,
      POSTDECK_SERVER: serverUrl,
    },
    stderr,
  });
}
