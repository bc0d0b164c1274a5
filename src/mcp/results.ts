import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toAppError } from '../core/errors.js';
import type { Logger } from '../logger.js';

/** A tool's answer: the result (always an object) as structured content and as JSON text. */
export function toolSuccess(value: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/**
 * A failure the agent can act on: `isError` with `{ error: { code, message, details } }` as JSON text,
 * the details naming each malformed argument's path. Anything that is not an AppError is logged and answered as a
 * generic internal error, so no internal text reaches the agent.
 */
export function toolFailure(error: unknown, logger: Logger, tool: string): CallToolResult {
  const known = toAppError(error, logger, 'MCP tool', { tool });
  const body = {
    code: known.code,
    message: known.message,
    ...(known.details ? { details: known.details.map(({ path, message }) => ({ path, message })) } : {}),
  };
  // Text only: a client checks structured content against the tool's output schema, errors included.
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: body }, null, 2) }] };
}
