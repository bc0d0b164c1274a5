import { z } from 'zod';
import { trimmedText } from '../../core/text-schema.js';

export { SignInInputSchema, SignUpInputSchema } from '../../core/identity/schema.js';

/** RFC 8628's client identifier: accepted so stock clients work, and ignored (no client registration). */
const ClientIdSchema = z.string().max(255).optional().describe('RFC 8628 client_id: accepted and ignored');

/**
 * POST /auth/device/start: an empty object, or the name of the requesting client. RFC 8628's
 * `client_id` and `scope` are accepted and ignored (a key's scope is its workspace); other fields too.
 */
export const DeviceStartBodySchema = z.object({
  client_name: trimmedText(100).optional().describe('shown on the approval page and used as the key name'),
  client_id: ClientIdSchema,
  scope: z.string().max(1000).optional().describe('RFC 8628 scope: accepted and ignored; a key acts on one workspace'),
});

/** The grant type of RFC 8628 section 3.4. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** POST /auth/device/token, as JSON or as RFC 8628's form. */
export const DeviceTokenBodySchema = z.object({
  device_code: z.string().min(1).max(200),
  grant_type: z
    .literal(DEVICE_CODE_GRANT)
    .optional()
    .describe('RFC 8628 3.4; any other grant is answered unsupported_grant_type'),
  client_id: ClientIdSchema,
});

/** POST /auth/device/approve and /deny: the code as the person typed it. */
export const UserCodeBodySchema = z.object({
  userCode: trimmedText(64).describe('case-insensitive; dashes and the prefix optional'),
});

/** The workspace the minted key will be scoped to (spec 4, approve). */
export const OrganizationHeaderSchema = z.object({
  'x-organization-id': z.uuid({ error: 'must be a workspace id (uuid)' }),
});
