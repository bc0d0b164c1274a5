import { z } from 'zod';
import { defineOperation } from '../operations/operation.js';
import { getPostingSchema } from './get-posting-schema.js';
import { listPlatforms } from './list-platforms.js';
import { PlatformListSchema } from './schema.js';
import { POSTING_SCHEMA_BODY } from '../providers/contract.js';

export const listPlatformsOperation = defineOperation({
  name: 'list_platforms',
  title: 'List platforms',
  summary:
    "List the connected, ready-to-post accounts of this workspace; each says in `analytics` whether its posts' numbers can be read, and if not, that reconnecting the account grants them",
  input: z.object({}),
  output: PlatformListSchema,
  result: 'the platforms',
  errors: [],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async (deps, scope) => ({ platforms: await listPlatforms(deps, scope) }),
});

export const getPlatformSchemaOperation = defineOperation({
  name: 'get_platform_schema',
  title: "Get a platform's posting schema",
  summary: "Read a platform's posting schema: content limits, media counts, settings and current privacy levels",
  input: z.object({ id: z.uuid().describe('the platform id, from list platforms') }),
  output: POSTING_SCHEMA_BODY,
  result: "the posting schema, from TikTok's creator info read just now",
  errors: ['invalid_request', 'not_found', 'conflict', 'rate_limited', 'provider_error'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  run: (deps, scope, input) => getPostingSchema(deps, scope, input.id),
});

/** The platform operations, in the order the API reference lists them. */
export const platformOperations = [listPlatformsOperation, getPlatformSchemaOperation] as const;
