import type { IncomingMessage } from 'node:http';
import { type z } from 'zod';
import type { CoreDeps } from '../../core/context.js';
import type { IssueDetail } from '../../core/errors.js';
import type { AnyOperation, Operation } from '../../core/operations/operation.js';
import { inputRules } from '../../core/operations/input-rules.js';
import type { RequestExample } from './request-examples.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type InputLocation = 'params' | 'query' | 'body';

/** A multipart/form-data body the route streams itself (uploads): the router never reads it. */
export interface MultipartBody {
  /** What the OpenAPI document shows for the form. */
  readonly schema: z.ZodType;
  /** Streams the form: the raw input fields, and how to undo what reading stored if the call fails early. */
  read(request: IncomingMessage, deps: CoreDeps): Promise<{ input: Record<string, unknown>; discard(): Promise<void> }>;
}

/** How an operation is reached over REST; everything else (schemas, errors, behaviour) is the operation's. */
export interface RestBindingOptions<Input extends z.ZodObject, Output> {
  method: HttpMethod;
  /** Path below /public/v1 in Koa syntax; each `:name` is an input field. */
  path: string;
  status: 200 | 201 | 202 | 204;
  /** The API reference's group. */
  tag: string;
  /** Input fields read from the query string; the path's fields come from the path, the rest from the body. */
  query?: readonly (keyof z.output<Input> & string)[];
  /** The JSON body's component name in the OpenAPI document. */
  bodyName?: string;
  multipart?: MultipartBody;
  /**
   * Honours an `Idempotency-Key` header (src/http/middleware/idempotency.ts): the same key and request
   * within 24 hours get the first outcome again. For creating operations; not with `multipart`.
   */
  idempotent?: boolean;
  /** For results that carry input issues (per-platform failures): puts them in REST's terms too. */
  relocateResult?: (result: Output, relocate: (details: readonly IssueDetail[]) => IssueDetail[]) => unknown;
  /** Named JSON bodies the API reference shows (each must be a valid body: a test checks them). */
  examples?: Readonly<Record<string, RequestExample>>;
}

/** An operation bound to a method and path, with the input split into the parts HTTP carries. */
export interface RestRoute {
  readonly operation: AnyOperation;
  readonly method: HttpMethod;
  readonly path: string;
  readonly status: 200 | 201 | 202 | 204;
  readonly tag: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodObject;
  readonly multipart?: MultipartBody;
  readonly idempotent: boolean;
  readonly examples?: Readonly<Record<string, RequestExample>>;
  /** Where each input field travels; a field not listed (a root issue) counts as the body's. */
  locate(field: string | number | undefined): InputLocation;
  relocateResult?(result: unknown, relocate: (details: readonly IssueDetail[]) => IssueDetail[]): unknown;
}

/**
 * Binds an operation to REST: path fields become path parameters, `query` fields the query string,
 * and the remaining fields the JSON body (or, with `multipart`, the form). The part schemas are cut
 * from the operation's own input schema, so validation and the OpenAPI document follow it exactly.
 */
export function bindRest<Input extends z.ZodObject, Output>(
  operation: Operation<Input, Output>,
  options: RestBindingOptions<Input, Output>,
): RestRoute {
  const shape = operation.input.shape as Record<string, z.ZodType>;
  const pathFields = [...options.path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1] as string);
  const queryFields: readonly string[] = options.query ?? [];
  const bodyFields = Object.keys(shape).filter((key) => !pathFields.includes(key) && !queryFields.includes(key));
  for (const key of [...pathFields, ...queryFields]) {
    if (!(key in shape)) throw new Error(`${operation.name}: ${key} is not a field of its input`);
  }
  if (options.idempotent && options.multipart)
    throw new Error(`${operation.name}: a multipart route cannot be idempotent`);
  // Picked, not rebuilt: a strict input (one that refuses unknown fields) stays strict in each part.
  const part = (keys: readonly string[]): z.ZodObject | undefined =>
    keys.length > 0 ? operation.input.pick(Object.fromEntries(keys.map((key) => [key, true])) as never) : undefined;
  const body = options.multipart ? undefined : part(bodyFields);
  const location = new Map<string, InputLocation>([
    ...pathFields.map((key) => [key, 'params'] as const),
    ...queryFields.map((key) => [key, 'query'] as const),
  ]);
  const relocateResult = options.relocateResult;
  return Object.freeze({
    operation: operation as AnyOperation,
    method: options.method,
    path: options.path,
    status: options.status,
    tag: options.tag,
    params: part(pathFields),
    query: part(queryFields),
    body: body && withInputRules(body, operation.input, options.bodyName),
    multipart: options.multipart,
    idempotent: options.idempotent ?? false,
    ...(options.examples ? { examples: options.examples } : {}),
    locate: (field: string | number | undefined) => location.get(String(field)) ?? 'body',
    ...(relocateResult
      ? { relocateResult: (result: unknown, relocate) => relocateResult(result as Output, relocate) }
      : {}),
  } satisfies RestRoute);
}

/**
 * The body part keeps the JSON Schema rules its operation's input states across fields (an if/then
 * beside the operation's check), and takes the binding's component name when it has one.
 */
function withInputRules(body: z.ZodObject, input: z.ZodObject, bodyName: string | undefined): z.ZodObject {
  const rules = inputRules(input);
  if (Object.keys(rules).length === 0 && bodyName === undefined) return body;
  return body.meta({ ...rules, ...(bodyName ? { id: bodyName } : {}) });
}
