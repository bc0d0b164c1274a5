import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ToolCallRequestSchema } from './tool-call.js';

/** Why `postdeck mcp` cannot reach its server, as one line that ends with the fix, and the code tool calls get. */
export interface BridgeProblem {
  code: 'missing_api_key' | 'invalid_api_key' | 'invalid_request' | 'internal_error';
  message: string;
}

const RESTART = 'then restart this MCP server (or the app that runs it)';

/** No key was set nor stored. */
export function missingKeyProblem(server: string): BridgeProblem {
  return {
    code: 'missing_api_key',
    message: `No API key for Postdeck at ${server}. Fix: run \`postdeck login\` (or set POSTDECK_API_KEY), ${RESTART}.`,
  };
}

/** Settings that do not parse (the environment the MCP client passes, e.g. a mistyped POSTDECK_API_KEY). */
export function settingsProblem(problems: readonly string[]): BridgeProblem {
  return {
    code: 'invalid_request',
    message: `This MCP server's settings are not valid (${problems.join('; ')}). Fix: correct them in the MCP client's configuration, ${RESTART}.`,
  };
}

/** What a failed connection to the server's /mcp means for the person who configured the bridge. */
export function connectionProblem(error: unknown, server: string): BridgeProblem {
  const text = error instanceof Error ? error.message : String(error);
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    const code = /"code"\s*:\s*"([a-z_]+)"/.exec(text)?.[1] ?? 'invalid_api_key';
    return {
      code: 'invalid_api_key',
      message:
        `Postdeck at ${server} refused the API key (${code}: wrong, revoked or from another server). ` +
        'Fix: set POSTDECK_API_KEY to a current key (`postdeck whoami --show-key` after `postdeck login`), ' +
        `or remove it to use the key \`postdeck login\` stored, ${RESTART}.`,
    };
  }
  return {
    code: 'internal_error',
    message:
      `Postdeck is not reachable at ${server} (${text.replace(/\s+/g, ' ').slice(0, 200)}). ` +
      `Fix: start it (\`npm start\`) or point POSTDECK_SERVER (or --server) at it, ${RESTART}.`,
  };
}

/**
 * The bridge when it cannot reach its server: it still answers the handshake (a desktop client would
 * otherwise show only "server disconnected"), lists the tools as the server would, and answers each
 * call with the problem and its fix, so the agent can tell the person what to do.
 */
export async function serveUnavailable(
  problem: BridgeProblem,
  options: { version: string; tools: Tool[] },
): Promise<{ close(): Promise<void> }> {
  const local = new Server(
    { name: 'postdeck', title: 'Postdeck', version: options.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: `Postdeck is not connected: ${problem.message}`,
    },
  );
  const unavailable = () => new McpError(ErrorCode.InvalidRequest, problem.message);
  local.setRequestHandler(ListToolsRequestSchema, () => ({ tools: options.tools }));
  local.setRequestHandler(ToolCallRequestSchema, (): CallToolResult => ({
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ error: problem }, null, 2) }],
  }));
  local.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  local.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  local.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [] }));
  local.setRequestHandler(ReadResourceRequestSchema, () => {
    throw unavailable();
  });
  local.setRequestHandler(GetPromptRequestSchema, () => {
    throw unavailable();
  });
  await local.connect(new StdioServerTransport());
  return { close: () => local.close() };
}
