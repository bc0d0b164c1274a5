import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import { AppError, invalidRequest, relocateIssues, type IssueDetail } from '../errors.js';
import { checkOperationInput, issuesOf, parseOperationInput } from './input.js';
import type { Operation } from './operation.js';

type Relocate = (path: IssueDetail['path']) => IssueDetail['path'];
const asSent: Relocate = (path) => path;

/** A part of an input as a transport carries it apart (REST: the path, the query string, the body). */
export interface InputPart {
  /** Put in front of the paths of this part's issues (`params`, `query`, `body`). */
  readonly where: string;
  /** The slice of the operation's input schema that reads this part. */
  readonly schema: z.ZodObject;
  readonly value: unknown;
}

/**
 * An input as it arrives: whole (MCP arguments, a web form, a chat action), or in parts, each read
 * by its own slice of the schema so that a field is taken only from the part it belongs to.
 */
export type OperationInput = { readonly whole: unknown } | { readonly parts: readonly InputPart[] };

/** An operation with an input that passed its schema and its check, ready to run. */
export interface OperationCall<Output> {
  /** Each part of a parted input as parsed, by `where` (REST fingerprints them for Idempotency-Key). */
  readonly parts: Readonly<Record<string, unknown>>;
  run(deps: CoreDeps, scope: Scope): Promise<Output>;
}

/**
 * Validates an input against the operation (its schema, then its `check`): invalid_request with
 * every issue at its path in the input, or where `relocate` puts it (issues in errors the run throws
 * too). For callers that must act between validation and the run; everyone else calls
 * `invokeOperation`.
 */
export function prepareOperation<Input extends z.ZodObject, Output>(
  operation: Operation<Input, Output>,
  input: OperationInput,
  relocate: Relocate = asSent,
): OperationCall<Output> {
  const parts: Record<string, unknown> = {};
  const parsed =
    'whole' in input
      ? parseOperationInput(operation, input.whole, relocate)
      : parseParts(operation, input.parts, parts, relocate);
  return {
    parts,
    async run(deps, scope) {
      try {
        return await operation.run(deps, scope, parsed);
      } catch (error) {
        if (!(error instanceof AppError) || !error.details) throw error;
        throw new AppError(error.code, error.message, relocateIssues(error.details, relocate), error.retryAfterSeconds);
      }
    },
  };
}

/**
 * The one way any surface (REST, MCP, web pages, chat) calls an operation: parse the raw input with
 * its schema, run its `check`, then `run`. A rule added to an operation so holds everywhere at once.
 */
export function invokeOperation<Input extends z.ZodObject, Output>(
  deps: CoreDeps,
  scope: Scope,
  operation: Operation<Input, Output>,
  raw: unknown,
  relocate: Relocate = asSent,
): Promise<Output> {
  return prepareOperation(operation, { whole: raw }, relocate).run(deps, scope);
}

/** Each part by its own schema (the first part with issues answers them, as parsed into `parsedParts`), then the rules across fields. */
function parseParts<Input extends z.ZodObject>(
  operation: Operation<Input, unknown>,
  parts: readonly InputPart[],
  parsedParts: Record<string, unknown>,
  relocate: Relocate,
): z.output<Input> {
  const input: Record<string, unknown> = {};
  for (const part of parts) {
    const parsed = part.schema.safeParse(part.value);
    if (!parsed.success) {
      throw invalidRequest(issuesOf(parsed.error).map((issue) => ({ ...issue, path: [part.where, ...issue.path] })));
    }
    parsedParts[part.where] = parsed.data;
    Object.assign(input, parsed.data);
  }
  const issues = checkOperationInput(operation, input as z.output<Input>);
  if (issues.length > 0) throw invalidRequest(relocateIssues(issues, relocate));
  return input as z.output<Input>;
}
