import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import type { ErrorCode, IssueDetail } from '../errors.js';

/** How an operation behaves, for callers that plan (MCP annotations, retries, confirmations). */
export interface OperationHints {
  /** Changes nothing. */
  readonly readOnly: boolean;
  /** May remove or overwrite what the caller cannot get back. */
  readonly destructive: boolean;
  /** Calling again with the same input has no further effect. */
  readonly idempotent: boolean;
  /** Reaches an outside service (TikTok, the AI provider). */
  readonly openWorld: boolean;
}

/**
 * One capability, declared once in core: every surface (REST, MCP, bots) binds to this object and
 * nothing else, so names, schemas, errors and behaviour cannot drift between them. The input is one
 * object, ids included: an MCP tool's arguments are exactly this input.
 */
export interface Operation<Input extends z.ZodObject = z.ZodObject, Output = unknown> {
  /** Stable snake_case name (`create_post`): the MCP tool name; REST derives its operationId. */
  readonly name: string;
  readonly title: string;
  /** What it does, for any caller: operations are named by their titles, never by an endpoint. */
  readonly summary: string;
  readonly input: Input;
  /**
   * Rules across fields, issues at paths relative to the input. Kept out of the schema so that no
   * adapter can drop them by taking the schema's shape apart; `parseOperationInput` runs them.
   */
  check?(input: z.output<Input>): IssueDetail[];
  /** The result's schema; none when the operation returns nothing. */
  readonly output?: z.ZodType<Output>;
  /** What a successful call returns, in words. */
  readonly result: string;
  /** The error codes it can answer with (auth errors are the adapters'). */
  readonly errors: readonly ErrorCode[];
  readonly hints: OperationHints;
  run(deps: CoreDeps, scope: Scope, input: z.output<Input>): Promise<Output>;
}

/** Declares an operation, its input and result types inferred from the schemas. */
export function defineOperation<Input extends z.ZodObject, Output = void>(
  operation: Operation<Input, Output>,
): Operation<Input, Output> {
  return Object.freeze(operation);
}

/** An operation of any shapes, as the registry holds it (`run` and `check` are methods, so this type-checks). */
export type AnyOperation = Operation<z.ZodObject, unknown>;
