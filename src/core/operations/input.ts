import type { z } from 'zod';
import { invalidRequest, relocateIssues, type IssueDetail } from '../errors.js';
import type { Operation } from './operation.js';

/** Zod's issues as the spec's `details`, each path relative to what was parsed. */
export function issuesOf(error: z.ZodError): IssueDetail[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
    // An unknown field is named by its own path, not its object's, so a client sees which one it was.
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ path: [...path, key], message: issue.message }));
    return [{ path, message: issue.message }];
  });
}

/** The operation's rules across fields for an input that passed its schema. */
export function checkOperationInput<Input extends z.ZodObject>(
  operation: Operation<Input, unknown>,
  input: z.output<Input>,
): IssueDetail[] {
  return operation.check?.(input) ?? [];
}

/**
 * Validates a raw input against the operation: its schema, then its rules across fields. Throws
 * invalid_request listing every issue at its path in the input, or where `relocate` puts it.
 */
export function parseOperationInput<Input extends z.ZodObject>(
  operation: Operation<Input, unknown>,
  raw: unknown,
  relocate: (path: IssueDetail['path']) => IssueDetail['path'] = (path) => path,
): z.output<Input> {
  const parsed = operation.input.safeParse(raw);
  const issues = parsed.success ? checkOperationInput(operation, parsed.data) : issuesOf(parsed.error);
  if (issues.length > 0 || !parsed.success) throw invalidRequest(relocateIssues(issues, relocate));
  return parsed.data;
}
