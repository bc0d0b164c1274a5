import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Scope } from '../core/context.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { MAX_INLINE_UPLOAD_BYTES } from './upload.js';

/** Answers one authenticated HTTP request to the MCP endpoint. */
export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse, scope: Scope) => Promise<void>;

/** Room for an inline upload's base64 (4/3 of its bytes) and the JSON-RPC around it. */
const MAX_BODY_BYTES = Math.ceil((MAX_INLINE_UPLOAD_BYTES * 4) / 3) + 64 * 1024;

/**
 * Streamable HTTP, stateless: each POST gets a server and a transport of its own, answered as an SSE
 * stream (so progress can flow) or JSON. No session lives in one process, so any API replica can
 * answer any request (docs/decisions.md, "MCP").
 */
export function createMcpHttpHandler(options: McpServerOptions): McpHttpHandler {
  return async (req, res, scope) => {
    const server = createMcpServer(options, scope);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
}
