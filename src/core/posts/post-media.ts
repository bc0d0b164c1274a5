import type { CoreDeps, Scope } from '../context.js';
import type { IssueDetail } from '../errors.js';
import type { MediaDoc } from '../media/documents.js';
import type { LoadedMedia, PostMedia } from '../providers/port.js';

/** Loads the media of `mediaIds` from the workspace (by `_id`, the fast lookup on FerretDB). */
export async function loadPostMedia(deps: CoreDeps, scope: Scope, mediaIds: readonly string[]): Promise<LoadedMedia> {
  const docs = await Promise.all(mediaIds.map((id) => deps.db.media.findOne({ _id: id })));
  const loaded: LoadedMedia = { media: [], docs: [], indexes: [], issues: [] };
  docs.forEach((doc, index) => {
    if (!doc || doc.workspaceId !== scope.workspaceId) {
      loaded.issues.push({ path: ['mediaIds', index], message: `media ${mediaIds[index]} was not found` });
      return;
    }
    loaded.media.push(toPostMedia(doc));
    loaded.docs.push(doc);
    loaded.indexes.push(index);
  });
  return loaded;
}

function toPostMedia(doc: MediaDoc): PostMedia {
  const facts = doc.thumbnailMetadata ?? {};
  const num = (key: string): number | null => (typeof facts[key] === 'number' ? facts[key] : null);
  return {
    id: doc._id,
    mediaType: doc.mediaType,
    mimeType: doc.mimeType,
    size: doc.size,
    status: doc.status,
    width: num('width'),
    height: num('height'),
    durationSec: num('durationSec'),
    fps: num('fps'),
  };
}

/** Summarises issues with a network's rules in one message (the details carry each one). */
export function issuesMessage(what: string, providerName: string, issues: readonly IssueDetail[]): string {
  const shown = issues.slice(0, 3).map((issue) => issue.message);
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return `${what} does not meet ${providerName}'s rules: ${shown.join('; ')}${more}`;
}
