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
import { ToolCallRequestSchema } from './tool-call.js';

export interface StdioBridgeOptions {
  /** The Postdeck server's base URL. */
  server: string;
  apiKey: string;
  version: string;
}

/**
 * `postdeck mcp`: an MCP server on stdin/stdout for desktop agents that forwards every tool call to
 * the Postdeck server's /mcp (tools, resources, prompts), so they are defined once, there. It adds only what needs the
 * agent's machine: upload_media also takes `path`, a local file streamed to the server.
 */
export async function startStdioBridge(options: StdioBridgeOptions): Promise<{ close(): Promise<void> }> {
  const remote = new Client({ name: 'postdeck-mcp-stdio', version: options.version });
  await remote.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', options.server), {
      requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } },
    }),
  );
  const { tools } = await remote.listTools();
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
    if (name === 'upload_media' && typeof args.path === 'string') return uploadLocalFile(options, args);
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
      const message = `The Postdeck server at ${options.server} did not answer: ${(error as Error).message}`;
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

/** upload_media as the server lists it, plus `path`; then either `content` or `path` is needed. */
function withLocalPath(tool: Tool): Tool {
  if (tool.name !== 'upload_media') return tool;
  const required = (tool.inputSchema.required ?? []).filter((field) => field !== 'content' && field !== 'fileName');
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
