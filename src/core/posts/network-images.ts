import type { CoreDeps, Scope } from '../context.js';
import type { WhenBusy } from '../media/decode-gate.js';
import { fitToAspect } from '../media/fit-aspect.js';
import type { LoadedMedia } from '../providers/port.js';
import type { PlatformDoc } from '../platforms/documents.js';

/**
 * The media ids a platform's post is stored and published with: the request's, each image replaced by the
 * one Postdeck renders for the platform's network when the network asks for it (a JPEG for a network that
 * takes only those, the fit the settings ask for). Rendered once per image, fit and limits: a repeat of the
 * request, or another post of the same image, gets the same media.
 */
export async function mediaIdsForNetwork(
  deps: CoreDeps,
  scope: Scope,
  platform: PlatformDoc,
  mediaIds: readonly string[],
  loaded: LoadedMedia,
  settings: Record<string, unknown>,
  whenBusy: WhenBusy,
): Promise<string[]> {
  const rendering = deps.providers.of(platform).rules.images;
  if (!rendering) return [...mediaIds];
  const asked = rendering.fitOf(settings);
  const rendered = new Map<string, string>();
  for (const doc of loaded.docs) {
    if (doc.mediaType !== 'image' || rendered.has(doc._id)) continue;
    // With no fit asked the checks refused an image outside the limits: only its format may need rendering.
    if (!asked && (doc.mimeType === 'image/jpeg' || !rendering.limits.jpegOnly)) continue;
    const sent = await fitToAspect(deps, scope, doc, rendering.limits, asked ?? { mode: 'crop' }, whenBusy);
    rendered.set(doc._id, sent._id);
  }
  return mediaIds.map((id) => rendered.get(id) ?? id);
}
