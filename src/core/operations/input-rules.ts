import type { z } from 'zod';

/**
 * The JSON Schema keywords an operation's input states for its rules across fields (an if/then, a
 * oneOf, beside the operation's `check`), without its name and words. A schema cut from the input
 * (a REST body part) or built on it (an MCP tool's extended arguments) takes them along, so every
 * surface states the rules the operation enforces.
 */
export function inputRules(input: z.ZodObject): z.GlobalMeta {
  const { id: _id, description: _description, title: _title, ...rules } = input.meta() ?? {};
  return rules;
}
