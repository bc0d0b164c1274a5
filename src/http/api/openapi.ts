import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ErrorCodes, type ErrorCode } from '../../core/errors.js';
import { UPLOAD_LINK_PATH } from '../../core/media/upload-links.js';
import { MediaSchema } from '../../core/media/schema.js';
import { registerDeviceFlowPaths } from '../auth/device-openapi.js';
import { STATUS_BY_CODE } from '../shared/error-status.js';
import { IdempotencyHeadersSchema, IDEMPOTENCY_ERRORS } from '../middleware/idempotency.js';
import { PUBLIC_PREFIX } from './public-router.js';
import type { RestRoute } from './rest-route.js';

const ErrorBodySchema = z
  .object({
    code: z.enum(Object.keys(ErrorCodes) as [keyof typeof ErrorCodes]).describe('stable code to branch on'),
    message: z.string().describe('human-readable explanation'),
    details: z
      .array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() }))
      .optional()
      .describe('validation issues, each with where it is and what is wrong'),
  })
  .meta({ id: 'Error' });

/** Generates the OpenAPI 3.1 document from the same operations and bindings the router serves. */
export function buildOpenApiDocument(routes: readonly RestRoute[], serverUrl: string): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key of the form service_sk_..., obtained through the device flow',
  });
  registry.registerComponent('securitySchemes', 'session', {
    type: 'http',
    scheme: 'bearer',
    description: 'A web session token (from /auth/signin); only for approving device codes',
  });
  for (const route of routes) registry.registerPath(toPathConfig(route));
  registerDeviceFlowPaths(registry, (statuses) =>
    Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, errorResponse(description)])),
  );
  registerUploadLinkPath(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Postdeck API',
      // The version the paths carry (/public/v1); Redoc shows it beside the title.
      version: 'v1',
      description: 'Schedule and publish TikTok and Instagram posts, manage media and generate slideshows.',
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
  });
  return withUuidPatterns(document);
}

/** The uuids zod accepts (RFC 9562 versions and variant, nil and max), as its JSON Schema states them. */
const UUID_PATTERN = (z.toJSONSchema(z.uuid()) as { pattern: string }).pattern;

/**
 * zod-to-openapi writes `z.uuid()` as `format: uuid` alone, which a validator reads as any
 * 8-4-4-4-12 hex string; zod refuses version 0 and other variants. The pattern states what is
 * checked, as the MCP tool schemas already do.
 */
function withUuidPatterns<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withUuidPatterns) as T;
  if (node === null || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withUuidPatterns(value)]));
  if (copy.format === 'uuid' && copy.pattern === undefined) copy.pattern = UUID_PATTERN;
  return copy as T;
}

/** The PUT an upload URL takes (create upload URL hands it out); the link is its credential. */
function registerUploadLinkPath(registry: OpenAPIRegistry): void {
  const errors: ErrorCode[] = [
    'not_found',
    'conflict',
    'invalid_api_key',
    'invalid_media_file',
    'payload_too_large',
    'server_busy',
  ];
  const responses: RouteConfig['responses'] = {
    201: { description: 'the new media object', content: { 'application/json': { schema: MediaSchema } } },
  };
  for (const code of errors) responses[STATUS_BY_CODE[code]] = errorResponse(code);
  registry.registerPath({
    method: 'put',
    path: `${UPLOAD_LINK_PATH}/{secret}`,
    operationId: 'uploadThroughLink',
    summary: 'Upload through an upload URL',
    description: 'Upload one file through an upload URL: the raw bytes as the body (curl -T); no key needed.',
    tags: ['Media'],
    security: [],
    request: {
      params: z.object({ secret: z.string().describe('the last part of the upload URL') }),
      body: {
        required: true,
        content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
      },
    },
    responses,
  });
}

/** An answer in the error shape (`{ code, message, details? }`), described by its codes. */
function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: ErrorBodySchema } } };
}

function toPathConfig(route: RestRoute): RouteConfig {
  const { operation } = route;
  const responses: RouteConfig['responses'] = {
    [route.status]: operation.output
      ? { description: operation.result, content: { 'application/json': { schema: operation.output } } }
      : { description: operation.result },
  };
  // A JSON body is read before the operation runs: too large is 413, not JSON is 415.
  const bodyErrors: ErrorCode[] = route.body ? ['invalid_request', 'payload_too_large', 'unsupported_media_type'] : [];
  const errors = [...operation.errors, ...bodyErrors, ...(route.idempotent ? IDEMPOTENCY_ERRORS : [])];
  for (const code of new Set(['missing_api_key', 'invalid_api_key', ...errors] as const)) {
    const status = STATUS_BY_CODE[code];
    const existing = responses[status] as { description: string } | undefined;
    responses[status] = errorResponse(existing ? `${existing.description}, ${code}` : code);
  }
  return {
    method: route.method,
    path: PUBLIC_PREFIX + route.path.replace(/:([A-Za-z_]+)/g, '{$1}'),
    operationId: operation.name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
    // A short title heads the operation in the reference; the summary is its text.
    summary: operation.title,
    description: operation.summary,
    tags: [route.tag],
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.idempotent ? { headers: IdempotencyHeadersSchema } : {}),
      ...(route.body
        ? {
            body: {
              required: true,
              content: {
                'application/json': { schema: route.body, ...(route.examples ? { examples: route.examples } : {}) },
              },
            },
          }
        : {}),
      ...(route.multipart
        ? { body: { required: true, content: { 'multipart/form-data': { schema: route.multipart.schema } } } }
        : {}),
    },
    responses,
  };
}
