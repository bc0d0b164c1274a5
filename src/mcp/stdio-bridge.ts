import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_WAIT_MS } from './long-work.js';
import { uploadLocalFile } from './local-upload.js';
import { connectionProblem, missingKeyProblem, serveUnavailable, type BridgeProblem } from './stdio-unavailable.js';
import { ToolCallRequestSchema } from './tool-call.js';

export interface StdioBridgeOptions {
  /** The Postdeck server's base URL. */
  server: string;
  /** Undefined when none was set or stored: the bridge still starts, and every tool call says how to get one. */
  apiKey: string | undefined;
  version: string;
  /** Set when the bridge must not even try (its settings are wrong): it only explains this. */
  problem?: BridgeProblem | undefined;
}

/** A running bridge; `problem` is set when it could not reach its server and only explains why. */
export interface StdioBridge {
  problem?: BridgeProblem;
  close(): Promise<void>;
}

/**
 * `postdeck mcp`: an MCP server on stdin/stdout for desktop agents that forwards every tool call to
 * the Postdeck server's /mcp (tools, resources, prompts), so they are defined once, there. It adds only what needs the
 * agent's machine: upload_media also takes `path`, a local file streamed to the server. When it cannot
 * reach the server (no key, a refused one, the server down) it still answers, saying why on each call.
 */
export async function startStdioBridge(options: StdioBridgeOptions): Promise<StdioBridge> {
  const connected = await connectRemote(options);
  if ('problem' in connected) {
    // The tools as this version's server lists them, so the agent can call one and hear the problem.
    const { TOOL_BINDINGS } = await import('./tools.js');
    const tools = [...TOOL_BINDINGS.values()].map((binding) => withLocalPath(binding.tool));
    const unavailable = await serveUnavailable(connected.problem, { version: options.version, tools });
    return { problem: connected.problem, close: () => unavailable.close() };
  }
  const { remote, tools, target } = connected;
  const local = new Server(
    { name: 'postdeck', title: 'Postdeck', version: options.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      ...(remote.getInstructions() ? { instructions: remote.getInstructions() } : {}),
    },
  );
  // Resources and prompts are the server's, passed through as they are.
  local.setRequestHandler(ListResourcesRequestSchema, ({ params }) => remote.listResources(params));
  local.setRequestHandler(ListResourceTemplatesRequestSchema, ({ params }) => remote.listResourceTemplates(params));
  local.setRequestHandler(ReadResourceRequestSchema, ({ params }) => remote.readResource(params));
  local.setRequestHandler(ListPromptsRequestSchema, ({ params }) => remote.listPrompts(params));
  local.setRequestHandler(GetPromptRequestSchema, ({ params }) => remote.getPrompt(params));
  local.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(withLocalPath) }));
  local.setRequestHandler(ToolCallRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    if (name === 'upload_media' && typeof args.path === 'string') {
      return uploadLocalFile(target, args);
    }
    const token = request.params._meta?.progressToken;
    try {
      return (await remote.callTool({ name, arguments: args }, undefined, {
        signal: extra.signal,
        timeout: MAX_WAIT_MS + 60_000,
        resetTimeoutOnProgress: true,
        ...(token === undefined
          ? {}
          : {
              onprogress: (progress) =>
                void extra.sendNotification({
                  method: 'notifications/progress',
                  params: { ...progress, progressToken: token },
                }),
            }),
      })) as CallToolResult;
    } catch (error) {
      if (extra.signal.aborted) throw error;
      const message = `The Postdeck server at ${target.server} did not answer: ${(error as Error).message}`;
      return {
        isError: true,
        content: [{ type: 'text', text: JSON.stringify({ error: { code: 'internal_error', message } }) }],
      };
    }
  });
  await local.connect(new StdioServerTransport());
  return {
    async close() {
      await local.close();
      await remote.close();
    },
  };
}

/** The client of the server's /mcp and its tools, or why there is none (a wrong key, no server). */
async function connectRemote(
  options: StdioBridgeOptions,
): Promise<{ remote: Client; tools: Tool[]; target: { server: string; apiKey: string } } | { problem: BridgeProblem }> {
  const { server, apiKey } = options;
  if (options.problem) return { problem: options.problem };
  if (apiKey === undefined) return { problem: missingKeyProblem(server) };
  const remote = new Client({ name: 'postdeck-mcp-stdio', version: options.version });
  try {
    await remote.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
    const { tools } = await remote.listTools();
    return { remote, tools, target: { server, apiKey } };
  } catch (error) {
    await remote.close().catch(() => undefined);
    return { problem: connectionProblem(error, server) };
  }
}

/** upload_media as the server lists it, plus `path`; then either `content` or `path` is needed. */
function withLocalPath(tool: Tool): Tool {
  if (tool.name !== 'upload_media') return tool;
  const required = (tool.inputSchema.required ?? []).filter((field) => field !== 'content');
  return {
    ...tool,
    description: `${tool.description} Give either content (base64) or path: a file on this machine, streamed to the server (videos of any size the server allows).`,
    inputSchema: {
      ...tool.inputSchema,
      properties: {
        ...tool.inputSchema.properties,
        path: {
          type: 'string',
          description: 'a local file to upload instead of content; its name is the default fileName',
        },
      },
      required,
    },
  };
}
