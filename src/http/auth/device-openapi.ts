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
  .object({ status: z.literal('approved'), api_key: z.string().describe('service_sk_…, returned exactly once') })
  .meta({ id: 'DeviceTokenApproved' });

const DeviceTokenErrorSchema = z
  .object({
    error: z
      .enum(['authorization_pending', 'slow_down', 'expired_token', 'access_denied', 'invalid_request'])
      .describe('keep polling on authorization_pending; add 5 s to the interval on slow_down; stop otherwise'),
  })
  .meta({ id: 'DeviceTokenError' });

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

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
    description: 'Get a user code to show and a device code to poll with.',
    tags: ['Device authorization'],
    security: [],
    request: { body: { required: false, ...json(DeviceStartBodySchema) } },
    responses: {
      200: { description: 'the codes', ...json(DeviceAuthorizationSchema) },
      ...errors({
        400: 'invalid_request (a body that is not an object, an unknown field)',
        413: 'payload_too_large',
        415: 'unsupported_media_type',
        429: 'rate_limited: too many starts from this address (Retry-After)',
      }),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/auth/device/token',
    operationId: 'pollDeviceToken',
    summary: 'Poll for the API key',
    description: 'Returns the key exactly once, after approval.',
    tags: ['Device authorization'],
    security: [],
    request: { body: { required: true, ...json(DeviceTokenBodySchema) } },
    responses: {
      200: { description: 'approved: the key', ...json(DeviceTokenApprovedSchema) },
      400: { description: 'pending, slow down, or a terminal answer', ...json(DeviceTokenErrorSchema) },
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
