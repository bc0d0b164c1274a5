import type { CoreDeps } from '../../core/context.js';
import type { MediaDeps } from '../../core/media/deps.js';
import type { AnyRoute } from '../route.js';
import { folderRoutes } from './media/folder-routes.js';
import { mediaRoutes } from './media/routes.js';
import { platformRoutes } from './platforms/routes.js';
import { postRoutes } from './posts/routes.js';

/** Every /public/v1 route. A capability adds its routes here. */
export function publicRoutes(deps: CoreDeps, media: MediaDeps): AnyRoute[] {
  return [...platformRoutes(deps), ...folderRoutes(deps), ...mediaRoutes(deps, media), ...postRoutes(deps)];
}
