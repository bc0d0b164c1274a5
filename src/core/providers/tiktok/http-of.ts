import type { CoreDeps } from '../../context.js';
import type { TikTokHttp } from './http.js';

/** The TikTok provider carries its HTTP client (real TikTok or the emulator, by its base URLs). */
export interface WithTikTokHttp {
  readonly http: TikTokHttp;
}

/** The TikTok client of this server, from the provider registry (a Map get). */
export function tiktokHttpOf(deps: Pick<CoreDeps, 'providers'>): TikTokHttp {
  return (deps.providers.of({ provider: 'tiktok' }) as unknown as WithTikTokHttp).http;
}
