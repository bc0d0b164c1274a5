import type { EventConsumer } from '../events/deliver.js';
import { requestCollection } from './collect-job.js';
import { openPostInsight } from './open-insight.js';

/**
 * What a published root post starts, from its `post.published` event (stored with the change, relayed at
 * least once, so a crash loses nothing): its insight record, then a collection run of its account, which
 * takes the account's totals when due and notes when the post's first snapshot falls due (a few minutes on; the
 * planner queues it then). Both are idempotent. The work waits while publishing runs,
 * waits or falls due in this worker (JobQueue.afterPublishing): delivered in batches after a busy minute,
 * a dozen writes an event must not come between due posts.
 */
export const insightsConsumer: EventConsumer = {
  name: 'insights',
  async handle(deps, event) {
    if (event.type !== 'post.published') return;
    await deps.jobs.afterPublishing(async () => {
      const post = await deps.db.posts.findOne({ _id: event.subjectId, workspaceId: event.workspaceId });
      if (!post || post.state !== 'PUBLISHED' || post.parentPostId !== null) return;
      await openPostInsight(deps, post, event.at);
      const platform = await deps.db.platforms.findOne(
        { _id: post.platformId },
        { projection: { provider: 1, metadata: 1 } },
      );
      if (!platform) return;
      const provider = deps.providers.of(platform);
      if (provider.accounts.analyticsAccess(platform).missingScopes.includes(provider.insights.postsScope)) return;
      await requestCollection(deps, post.platformId);
    });
  },
};
