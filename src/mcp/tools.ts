import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { CoreDeps } from '../core/context.js';
import type { AnyOperation } from '../core/operations/operation.js';
import { invalidRequest } from '../core/errors.js';
import { issuesOf, parseOperationInput } from '../core/operations/input.js';
import { OPERATIONS } from '../core/operations/registry.js';
import { jsonSchemaOf, type JsonSchemaObject } from './json-schema.js';
import { InlineUploadSchema, inlineUploadInput } from './upload.js';

/** An operation as an MCP tool: how it is listed, and how its arguments become the operation's input. */
export interface ToolBinding {
  operation: AnyOperation;
  tool: Tool;
  /** Whether a result comes back as structured content (the output is an object). */
  structured: boolean;
  /** Validates the arguments and turns them into the operation's input. */
  input(deps: CoreDeps, args: unknown): Promise<unknown>;
}

/**
 * How the arguments of a tool differ from its operation's input, where a transport must: an upload's
 * bytes arrive as base64 in the arguments, where REST streams them as a form part.
 */
const ARGUMENT_SCHEMAS: Readonly<
  Record<string, { schema: z.ZodObject; toInput(deps: CoreDeps, args: never): Promise<unknown> }>
> = {
  upload_media: { schema: InlineUploadSchema, toInput: inlineUploadInput },
};

function annotationsOf(operation: AnyOperation): ToolAnnotations {
  const { readOnly, destructive, idempotent, openWorld } = operation.hints;
  return {
    title: operation.title,
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: idempotent,
    openWorldHint: openWorld,
  };
}

function describe(operation: AnyOperation): string {
  const errors = operation.errors.join(', ');
  return `${operation.summary}. Returns ${operation.result}. Failures come back as isError results with a code (${errors}).`;
}

function bind(operation: AnyOperation): ToolBinding {
  const special = ARGUMENT_SCHEMAS[operation.name];
  const inputSchema = jsonSchemaOf(special?.schema ?? operation.input, 'input') as JsonSchemaObject;
  const outputSchema = operation.output ? jsonSchemaOf(operation.output, 'output') : undefined;
  return {
    operation,
    structured: outputSchema !== undefined,
    tool: {
      name: operation.name,
      title: operation.title,
      description: describe(operation),
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations: annotationsOf(operation),
    },
    async input(deps, args) {
      if (!special) return parseOperationInput(operation, args ?? {});
      const parsed = special.schema.safeParse(args ?? {});
      if (!parsed.success) throw invalidRequest(issuesOf(parsed.error));
      return special.toInput(deps, parsed.data as never);
    },
  };
}

/** One tool per operation, by the operation's name. */
export const TOOL_BINDINGS: ReadonlyMap<string, ToolBinding> = new Map(
  OPERATIONS.map((operation) => [operation.name, bind(operation)]),
);
