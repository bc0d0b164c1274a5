import type { CoreDeps } from '../../../core/context.js';
import { listPlatforms } from '../../../core/platforms/list-platforms.js';
import { defineRoute, type AnyRoute } from '../../route.js';
import { PlatformListSchema } from '../../../core/platforms/schema.js';

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
  ];
}
