import type { PlatformDoc } from '../platforms/documents.js';
import type { Provider } from './port.js';

/** The networks this server publishes to, by the `provider` value of their platforms. */
export interface ProviderRegistry<Deps = unknown> {
  /** The provider of a platform (a Map get: no database read). */
  of(platform: Pick<PlatformDoc, 'provider'>): Provider<Deps>;
  /** Every registered provider, in registration order. */
  all(): readonly Provider<Deps>[];
}

/** A registry over `providers`; a platform whose provider is not among them is a programming error. */
export function createProviderRegistry<Deps>(providers: readonly Provider<Deps>[]): ProviderRegistry<Deps> {
  const byId = new Map(providers.map((provider) => [provider.id, provider]));
  return {
    of(platform) {
      const provider = byId.get(platform.provider);
      if (!provider) throw new Error(`no provider registered for "${platform.provider}"`);
      return provider;
    },
    all: () => providers,
  };
}
