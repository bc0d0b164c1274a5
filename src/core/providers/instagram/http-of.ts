import type { CoreDeps } from '../../context.js';
import type { InstagramHttp } from './graph.js';

/** The Instagram provider carries its HTTP client (real Instagram or the emulator, by its base URLs). */
export interface WithInstagramHttp {
  readonly http: InstagramHttp;
}

/** The Instagram client of this server, from the provider registry (a Map get). */
export function instagramHttpOf(deps: Pick<CoreDeps, 'providers'>): InstagramHttp {
  return (deps.providers.of({ provider: 'instagram' }) as unknown as WithInstagramHttp).http;
}
