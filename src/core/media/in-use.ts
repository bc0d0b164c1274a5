import type { Db } from 'mongodb';

/**
 * Whether a post that is queued (scheduled or due) or being published right now uses the media,
 * read from the `posts` collection by its `mediaIds` array in one query. Drafts do not hold their
 * media: publishing a draft checks its media again.
 */
export function postsUsingMedia(db: Db): (workspaceId: string, mediaId: string) => Promise<boolean> {
  return async (workspaceId, mediaId) =>
    (await db
      .collection('posts')
      .countDocuments({ workspaceId, mediaIds: mediaId, state: { $in: ['QUEUE', 'PUBLISHING'] } }, { limit: 1 })) > 0;
}
