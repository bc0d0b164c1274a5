import type { Db } from 'mongodb';

/**
 * Whether a queued (scheduled or due) post uses the media, read from the `posts` collection by
 * its `mediaIds` array. Until posts exist the collection is empty and nothing is in use; the
 * posts capability must keep `workspaceId`, `state` and `mediaIds` or change this one query.
 */
export function postsUsingMedia(db: Db): (workspaceId: string, mediaId: string) => Promise<boolean> {
  return async (workspaceId, mediaId) =>
    (await db.collection('posts').countDocuments({ workspaceId, mediaIds: mediaId, state: 'QUEUE' }, { limit: 1 })) > 0;
}
