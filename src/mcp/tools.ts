import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CoreDeps, Scope } from '../core/context.js';
import { invalidRequest } from '../core/errors.js';
import type { AnyOperation } from '../core/operations/operation.js';
import { checkOperationInput, issuesOf } from '../core/operations/input.js';
import { inputRules } from '../core/operations/input-rules.js';
import { invokeOperation } from '../core/operations/invoke.js';
import { OPERATIONS } from '../core/operations/registry.js';
import { uploadMediaOperation } from '../core/media/operations.js';
import { jsonSchemaOf, type JsonSchemaObject } from './json-schema.js';
import { GenerateArgumentsSchema, GenerateResultSchema, generateAndFollow, type ToolContext } from './long-work.js';
import { InlineUploadSchema, inlineUploadInput } from './upload.js';

export type { ToolContext } from './long-work.js';

/** An operation as an MCP tool: how it is listed, and how a call runs. */
export interface ToolBinding {
  tool: Tool;
  call(deps: CoreDeps, scope: Scope, args: unknown, context: ToolContext): Promise<object>;
}

/**
 * Where a tool must differ from its operation, and why. The arguments and results stay the
 * operation's own schemas, extended: an upload's bytes arrive as base64 where REST streams a form
 * part; generate_slideshow can wait for its job and report progress, which only MCP can carry.
 */
interface ToolExtension {
  args: z.ZodObject;
  output?: z.ZodObject;
  call(deps: CoreDeps, scope: Scope, args: never, context: ToolContext): Promise<unknown>;
}

const EXTENSIONS: Readonly<Record<string, ToolExtension>> = {
  upload_media: {
    args: InlineUploadSchema,
    async call(deps, scope, args: z.output<typeof InlineUploadSchema>) {
      return invokeOperation(deps, scope, uploadMediaOperation, await inlineUploadInput(deps, args));
    },
  },
  generate_slideshow: { args: GenerateArgumentsSchema, output: GenerateResultSchema, call: generateAndFollow },
};

/** The result of an operation that answers nothing else (a delete): an agent still gets a schema to rely on. */
const DoneSchema = z.object({ done: z.literal(true).describe('the operation finished; it has no other result') });

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

/** The extension's arguments, validated, with the operation's rules across fields (issues at argument paths). */
function parseExtended(operation: AnyOperation, extension: ToolExtension, args: unknown): unknown {
  const parsed = extension.args.safeParse(args ?? {});
  if (!parsed.success) throw invalidRequest(issuesOf(parsed.error));
  const issues = checkOperationInput(operation, parsed.data);
  if (issues.length > 0) throw invalidRequest(issues);
  return parsed.data;
}

function bind(operation: AnyOperation): ToolBinding {
  const extension = EXTENSIONS[operation.name];
  // An extension's arguments state the operation's rules across fields too.
  const args = extension ? extension.args.meta(inputRules(operation.input)) : operation.input;
  const inputSchema = jsonSchemaOf(args, 'input') as JsonSchemaObject;
  const output = extension?.output ?? operation.output;
  const outputSchema = jsonSchemaOf(output ?? DoneSchema, 'output');
  return {
    tool: {
      name: operation.name,
      title: operation.title,
      description: describe(operation),
      inputSchema,
      outputSchema,
      annotations: annotationsOf(operation),
    },
    async call(deps, scope, args, context) {
      const result = extension
        ? await extension.call(deps, scope, parseExtended(operation, extension, args) as never, context)
        : await invokeOperation(deps, scope, operation, args ?? {});
      return output ? (result as object) : { done: true };
    },
  };
}

/** One tool per operation, by the operation's name. */
export const TOOL_BINDINGS: ReadonlyMap<string, ToolBinding> = new Map(
  OPERATIONS.map((operation) => [operation.name, bind(operation)]),
);
