import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CoreDeps, Scope } from '../core/context.js';
import { AppError } from '../core/errors.js';
import type { Logger } from '../logger.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { toolFailure, toolSuccess } from './results.js';
import { ToolCallRequestSchema } from './tool-call.js';
import { TOOL_BINDINGS, type ToolContext } from './tools.js';

export interface McpServerOptions {
  deps: CoreDeps;
  logger: Logger;
  /** The server's version, as clients see it in the handshake. */
  version: string;
}

const INSTRUCTIONS = `Postdeck schedules and publishes TikTok and Instagram posts (photo carousels, images, videos and Reels) for one workspace.
Typical flow: list_platforms, then get_platform_schema for the account's posting rules; write captions
(generate_captions) and upload or generate images; composite_slides bakes captions onto them; create_post
last, as a draft unless told otherwise, then publish_post. Failures are isError results with a stable code.`;

/**
 * An MCP server for one caller's workspace: every operation as a tool. One per connection (the SDK's
 * servers take one transport each), built for the scope the caller authenticated as.
 */
export function createMcpServer(options: McpServerOptions, scope: Scope): Server {
  const server = new Server(
    { name: 'postdeck', title: 'Postdeck', version: options.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  registerResources(server, options.deps, scope, options.logger);
  registerPrompts(server);
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...TOOL_BINDINGS.values()].map((binding) => binding.tool),
  }));
  server.setRequestHandler(ToolCallRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const binding = TOOL_BINDINGS.get(name);
    const token = request.params._meta?.progressToken;
    const context: ToolContext = {
      signal: extra.signal,
      ...(token === undefined
        ? {}
        : {
            progress: (progress, total, message) =>
              extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress, total, message },
              }),
          }),
    };
    // A name no tool has is counted as `unknown`: callers choose names, and must not grow the label set.
    const tool = binding ? name : 'unknown';
    try {
      if (!binding) throw new AppError('not_found', `No tool is named ${name}; tools/list has them all`);
      const result = toolSuccess(await binding.call(options.deps, scope, args, context));
      options.deps.metrics.toolCall(tool, 'ok');
      return result;
    } catch (error) {
      options.deps.metrics.toolCall(tool, 'error');
      return toolFailure(error, options.logger, name);
    }
  });
  return server;
}
