import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../core/context.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { MAX_INLINE_UPLOAD_BYTES } from './upload.js';

/** Answers one authenticated HTTP request to the MCP endpoint. */
export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse, scope: Scope) => Promise<void>;

/** Room for an inline upload's base64 (4/3 of its bytes) and the JSON-RPC around it. */
const MAX_BODY_BYTES = Math.ceil((MAX_INLINE_UPLOAD_BYTES * 4) / 3) + 64 * 1024;

/**
 * Streamable HTTP, stateless: each POST gets a server and a transport of its own. No session lives
 * in one process, so any API replica can answer any request (docs/decisions.md, "MCP"). A request
 * that carries a progress token is answered as an SSE stream, so progress can flow; any other as
 * plain JSON, which costs a third less.
 */
export function createMcpHttpHandler(options: McpServerOptions): McpHttpHandler {
  return async (req, res, scope) => {
    const body = await readJsonRpc(req);
    if (!body.ok) {
      // The rest of a refused body is not read, so the connection cannot carry another request.
      res.writeHead(body.status, {
        'content-type': 'application/json',
        ...(body.status === 413 ? { connection: 'close' } : {}),
      });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: body.code, message: body.message }, id: null }));
      return;
    }
    const server = createMcpServer(options, scope);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !carriesProgressToken(body.message),
    });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body.message);
  };
}

type Body = { ok: true; message: unknown } | { ok: false; status: number; code: number; message: string };

async function readJsonRpc(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      return { ok: false, status: 413, code: -32000, message: `The request is over ${MAX_BODY_BYTES} bytes` };
    }
    chunks.push(chunk);
  }
  let message: unknown;
  try {
    message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the body is not JSON' };
  }
  // JSON that is no JSON-RPC message is an Invalid Request (the SDK would call it a parse error).
  const messages = Array.isArray(message) ? (message as unknown[]) : [message];
  if (messages.length === 0 || !messages.every((one) => JSONRPCMessageSchema.safeParse(one).success)) {
    return { ok: false, status: 400, code: -32600, message: 'Invalid Request: the body is not a JSON-RPC 2.0 message' };
  }
  return { ok: true, message };
}

function carriesProgressToken(message: unknown): boolean {
  const messages = Array.isArray(message) ? (message as unknown[]) : [message];
  return messages.some((one) => {
    const meta = (one as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined;
  });
}
