import { z } from 'zod';
import { trimmedText } from '../../core/text-schema.js';

export { SignInInputSchema, SignUpInputSchema } from '../../core/identity/schema.js';

/** POST /auth/device/start: an empty object, or the name of the requesting client. */
export const DeviceStartBodySchema = z.object({
  client_name: trimmedText(100).optional().describe('shown on the approval page and used as the key name'),
});

/** POST /auth/device/token. Extra RFC fields (grant_type, client_id) are accepted and ignored. */
export const DeviceTokenBodySchema = z.object({
  device_code: z.string().min(1).max(200),
});

/** POST /auth/device/approve and /deny: the code as the person typed it. */
export const UserCodeBodySchema = z.object({
  userCode: trimmedText(64).describe('case-insensitive; dashes and the prefix optional'),
});

/** The workspace the minted key will be scoped to (spec 4, approve). */
export const OrganizationHeaderSchema = z.object({
  'x-organization-id': z.uuid({ error: 'must be a workspace id (uuid)' }),
});
