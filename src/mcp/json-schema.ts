import { z } from 'zod';

/** A JSON Schema object, as MCP lists a tool's input and output. */
export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/**
 * The JSON Schema of an operation's input or output, as MCP wants it: an object at the top. A schema
 * with an id (`.meta({ id })`) comes out as a `$ref` into `$defs`; that definition is lifted to the
 * top, the other definitions kept beside it. Undefined when the schema is not an object.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchemaObject | undefined {
  const generated = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema: _dialect, $ref, $defs, ...rest } = generated;
  const defs = { ...($defs as Record<string, Record<string, unknown>> | undefined) };
  let top: Record<string, unknown> = rest;
  if (typeof $ref === 'string' && $ref.startsWith('#/$defs/')) {
    const name = $ref.slice('#/$defs/'.length);
    top = { ...defs[name], ...rest };
    // Other definitions may still point at it, so it stays under its name as well.
  }
  if (top.type !== 'object') return undefined;
  return { ...top, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) } as JsonSchemaObject;
}
