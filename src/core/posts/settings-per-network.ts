import type { ProviderId } from '../platforms/documents.js';
import { SETTING_KEYS_BY_PROVIDER } from '../providers/contract.js';

/**
 * What one platform's network takes from a request's one `settings` object: the keys that another network of the
 * same request declares, and this network does not, are left out (they are that network's); every other key stays
 * for this network to check, so a key no network of the request knows is still refused.
 */
export function settingsForNetwork(
  settings: unknown,
  network: ProviderId,
  requestNetworks: readonly ProviderId[],
): unknown {
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) return settings;
  const own = new Set(SETTING_KEYS_BY_PROVIDER[network]);
  const foreign = new Set(
    requestNetworks.filter((n) => n !== network).flatMap((n) => SETTING_KEYS_BY_PROVIDER[n].filter((k) => !own.has(k))),
  );
  return Object.fromEntries(Object.entries(settings).filter(([key]) => !foreign.has(key)));
}
