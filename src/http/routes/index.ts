import type { CoreDeps } from '../../core/context.js';
import type { AnyRoute } from '../route.js';
import { platformRoutes } from './platforms/routes.js';

/** Every /public/v1 route. A capability adds its routes here. */
export function publicRoutes(deps: CoreDeps): AnyRoute[] {
  return [...platformRoutes(deps)];
}
