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
    "List the connected, ready-to-post accounts of this workspace, TikTok and Instagram alike (`provider` says which network); each says in `analytics` whether its posts' numbers can be read, and if not, that reconnecting the account grants them",
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
  summary:
    "Read a platform's posting schema, one shape per network (`provider`): TikTok's content limits, media counts, settings and current privacy levels, or Instagram's post kinds, caption and media limits, settings and publishing quota left. Settings keys are per network: a post's one settings object may carry both networks' keys, each network taking those its schema declares",
  input: z.object({ id: z.uuid().describe('the platform id, from list platforms') }),
  output: POSTING_SCHEMA_BODY,
  result: "the posting schema, read from the network just now (TikTok's creator info, Instagram's account and quota)",
  errors: ['invalid_request', 'not_found', 'conflict', 'rate_limited', 'provider_error'],
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  run: (deps, scope, input) => getPostingSchema(deps, scope, input.id),
});

/** The platform operations, in the order the API reference lists them. */
export const platformOperations = [listPlatformsOperation, getPlatformSchemaOperation] as const;
