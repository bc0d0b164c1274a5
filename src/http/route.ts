import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import type { Scope } from '../core/context.js';
import type { ErrorCode } from '../core/errors.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a handler receives: validated inputs, the caller's scope, and the raw context for rare needs. */
export interface RouteInput<Params, Query, Body> {
  params: Params;
  query: Query;
  body: Body;
  scope: Scope;
  /** The unread request, given only to `multipart` routes, which stream their own body. */
  request?: IncomingMessage;
}

/**
 * One API operation, declared once: the router validates with these schemas and the OpenAPI
 * document is generated from the very same ones, so the two cannot drift.
 */
export interface RouteDefinition<Params = unknown, Query = unknown, Body = unknown, Result = unknown> {
  method: HttpMethod;
  /** Path below /public/v1 in Koa syntax, e.g. `/posts/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  params?: z.ZodType<Params>;
  query?: z.ZodType<Query>;
  body?: z.ZodType<Body>;
  /**
   * A multipart/form-data body the handler streams itself (uploads); `schema` only documents it.
   * The router neither reads nor validates such a body.
   */
  multipart?: { schema: z.ZodType };
  /**
   * Honours an `Idempotency-Key` header (see src/http/middleware/idempotency.ts): the same key
   * and request within 24 hours get the first outcome again without running the handler twice.
   * For creating operations; not combinable with `multipart`, whose body is never read here.
   */
  idempotent?: boolean;
  /** Success status and body schema; 204 has no body. */
  success: { status: 200 | 201 | 202 | 204; description: string; schema?: z.ZodType<Result> };
  /** Error codes this operation can answer with, documented in OpenAPI. */
  errors: ErrorCode[];
  handler(input: RouteInput<Params, Query, Body>): Promise<Result>;
}

/** Declares a route with its types inferred from the schemas. */
export function defineRoute<Params = undefined, Query = undefined, Body = undefined, Result = unknown>(
  route: RouteDefinition<Params, Query, Body, Result>,
): RouteDefinition<Params, Query, Body, Result> {
  return route;
}

/** A route of any shapes, as the route table holds it (the handler is a method, so this type-checks). */
export type AnyRoute = RouteDefinition<unknown, unknown, unknown, unknown>;
