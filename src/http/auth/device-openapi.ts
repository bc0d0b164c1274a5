import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  DeviceStartBodySchema,
  DeviceTokenBodySchema,
  OrganizationHeaderSchema,
  UserCodeBodySchema,
} from './auth-schema.js';

const DeviceAuthorizationSchema = z
  .object({
    device_code: z.string().describe('secret; poll the token endpoint with it'),
    user_code: z.string().describe('shown to the person, shaped <PREFIX>-XXXX-XXXX'),
    verification_uri: z.url(),
    verification_uri_complete: z.url().describe('verification_uri with the code filled in'),
    interval: z.number().int().describe('seconds to wait between polls'),
    expires_in: z.number().int().describe('seconds until the codes expire'),
  })
  .meta({ id: 'DeviceAuthorization' });

const DeviceTokenApprovedSchema = z
  .object({
    status: z.literal('approved'),
    api_key: z.string().describe('service_sk_…, returned exactly once'),
    access_token: z.string().describe("the same key under RFC 6749 5.1's name, for stock OAuth clients"),
    token_type: z.literal('Bearer').describe('send the key as `Authorization: Bearer <key>`'),
  })
  .meta({ id: 'DeviceTokenApproved' });

const DeviceTokenErrorSchema = z
  .object({
    error: z
      .enum([
        'authorization_pending',
        'slow_down',
        'expired_token',
        'access_denied',
        'invalid_request',
        'unsupported_grant_type',
      ])
      .describe('keep polling on authorization_pending; add 5 s to the interval on slow_down; stop otherwise'),
    error_description: z.string().describe('what happened and what to do, for a person (RFC 6749 5.2)'),
  })
  .meta({ id: 'DeviceTokenError' });

const DeviceStartErrorSchema = z
  .object({
    code: z.enum(['invalid_request', 'payload_too_large', 'unsupported_media_type', 'rate_limited']),
    message: z.string().describe('human-readable explanation'),
    details: z
      .array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() }))
      .optional()
      .describe('validation issues, each with where it is and what is wrong'),
    error: z.enum(['invalid_request', 'slow_down']).describe('RFC 6749 5.2: slow_down for rate_limited'),
    error_description: z.string().describe('the message again, for stock RFC 8628 clients'),
  })
  .meta({ id: 'DeviceStartError' });

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

/** A body sent as JSON or as RFC 8628's form (what stock device-flow clients send); same fields. */
const jsonOrForm = (schema: z.ZodType) => ({
  content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
});

/** Answers in the API's error shape (`{ code, message, details? }`), by status, for the document. */
type ErrorResponses = (statuses: Record<number, string>) => Record<number, { description: string }>;

/**
 * Documents the RFC 8628 device flow (spec 4) in the OpenAPI document: the way an agent or a
 * script gets its API key. These paths carry no version prefix and need no API key.
 */
export function registerDeviceFlowPaths(registry: OpenAPIRegistry, errors: ErrorResponses): void {
  registry.registerPath({
    method: 'post',
    path: '/auth/device/start',
    operationId: 'startDeviceAuthorization',
    summary: 'Start a device login',
    tags: ['Device authorization'],
    security: [],
    description:
      'Get a user code to show and a device code to poll with (RFC 8628 3.1). The body is JSON or ' +
      "`application/x-www-form-urlencoded`. Refusals carry the API's `code` and `message` and RFC 6749's " +
      '`error` and `error_description`.',
    request: { body: { required: false, ...jsonOrForm(DeviceStartBodySchema) } },
    responses: {
      200: { description: 'the codes', ...json(DeviceAuthorizationSchema) },
      400: {
        description: 'invalid_request (a body that is not an object, a bad field)',
        ...json(DeviceStartErrorSchema),
      },
      413: { description: 'payload_too_large', ...json(DeviceStartErrorSchema) },
      415: { description: 'unsupported_media_type: neither JSON nor a form', ...json(DeviceStartErrorSchema) },
      429: {
        description: 'rate_limited (error slow_down): too many starts from this address; wait Retry-After seconds',
        ...json(DeviceStartErrorSchema),
      },
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/auth/device/token',
    operationId: 'pollDeviceToken',
    summary: 'Poll for the API key',
    description:
      'Returns the key exactly once, after approval (RFC 8628 3.4). The body is JSON or ' +
      '`application/x-www-form-urlencoded` ' +
      '(`grant_type=urn:ietf:params:oauth:grant-type:device_code&device_code=…&client_id=…`). ' +
      'Every refusal, bad input included, is `{ error, error_description }` (RFC 8628 3.5, RFC 6749 5.2).',
    tags: ['Device authorization'],
    security: [],
    request: { body: { required: true, ...jsonOrForm(DeviceTokenBodySchema) } },
    responses: {
      200: { description: 'approved: the key', ...json(DeviceTokenApprovedSchema) },
      400: {
        description: 'pending, slow down, a terminal answer, or a malformed request',
        ...json(DeviceTokenErrorSchema),
      },
      429: {
        description: 'slow_down: too many wrong codes from this address; wait Retry-After seconds',
        ...json(DeviceTokenErrorSchema),
      },
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/auth/device/approve',
    operationId: 'approveDeviceCode',
    summary: 'Approve a device',
    description: "Approve a user code for a workspace (the web app's call, with a user session).",
    tags: ['Device authorization'],
    security: [{ session: [] }],
    request: { headers: OrganizationHeaderSchema, body: { required: true, ...json(UserCodeBodySchema) } },
    responses: {
      200: {
        description: 'approved',
        ...json(z.object({ status: z.literal('approved'), organizationId: z.uuid() })),
      },
      ...errors({
        400: 'invalid_request',
        401: 'invalid_session: no valid session',
        403: 'forbidden',
        404: 'not_found: no pending code like this, or not a member of the workspace',
        409: 'conflict: the code was already approved or denied',
        413: 'payload_too_large',
        415: 'unsupported_media_type',
        429: 'rate_limited: too many wrong codes (Retry-After)',
      }),
    },
  });
}
