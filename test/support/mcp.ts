import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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

/**
 * The SDK's own client over Streamable HTTP to `serverUrl`/mcp with `apiKey`, its tools listed: the
 * client then checks each structured result against the tool's output schema, as an agent's does.
 */
export async function connectMcpOverHttp(serverUrl: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'postdeck-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  await client.listTools();
  return client;
}
