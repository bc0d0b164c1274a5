import type { CoreDeps } from '../../../core/context.js';
import { getPostingSchema } from '../../../core/platforms/get-posting-schema.js';
import { listPlatforms } from '../../../core/platforms/list-platforms.js';
import { PlatformListSchema } from '../../../core/platforms/schema.js';
import { PostingSchemaBodySchema } from '../../../core/platforms/tiktok-posting-schema.js';
import { IdParamsSchema } from '../params.js';
import { defineRoute, type AnyRoute } from '../../route.js';

/** The platform routes (connected accounts). */
export function platformRoutes(deps: CoreDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/platforms',
      operationId: 'listPlatforms',
      summary: 'List the connected, ready-to-post accounts of this workspace',
      tag: 'Platforms',
      success: { status: 200, description: 'the platforms', schema: PlatformListSchema },
      errors: [],
      handler: async ({ scope }) => ({ platforms: await listPlatforms(deps, scope) }),
    }),
    defineRoute({
      method: 'get',
      path: '/platforms/:id/schema',
      operationId: 'getPlatformSchema',
      summary: "Read a platform's posting schema: content limits, media counts, settings and current privacy levels",
      tag: 'Platforms',
      params: IdParamsSchema,
      success: {
        status: 200,
        description: "the posting schema, from TikTok's creator info read just now",
        schema: PostingSchemaBodySchema,
      },
      errors: ['invalid_request', 'not_found', 'conflict', 'rate_limited', 'provider_error'],
      handler: ({ scope, params }) => getPostingSchema(deps, scope, params.id),
    }),
  ];
}
