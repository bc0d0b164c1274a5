import {
  CallToolRequestParamsSchema,
  ErrorCode,
  McpError,
  type CallToolRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * `tools/call` for `setRequestHandler`, refusing malformed params (`arguments` that are not an
 * object, a `name` that is not a string) as JSON-RPC -32602 Invalid params in one line. The SDK
 * parses a request with the handler's schema before anything else and answers a failure there as
 * -32603 Internal error carrying zod's whole report; this schema throws the protocol's error instead.
 */
export const ToolCallRequestSchema = z.looseObject({
  method: z.literal('tools/call'),
  params: z.custom<CallToolRequest['params']>((params) => {
    const parsed = CallToolRequestParamsSchema.safeParse(params);
    if (parsed.success) return true;
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : 'params';
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${field}: ${issue?.message ?? 'malformed'}`);
  }),
});
