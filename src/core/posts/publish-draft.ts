import { recordAudit, requesterOf } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import type { PostDoc } from './documents.js';
import { providerOfPlatform } from '../platforms/provider-of.js';
import { AppError, type IssueDetail } from '../errors.js';
import { findRootForChange, findWorkspacePost, loadGroup } from './find-post.js';
import { refundPostCap, spendPostCap } from './post-cap.js';
import { withPostLeases } from './post-lease.js';
import { enqueueOrLeaveToSweep } from './queue-post.js';
import type { PublishPostInput } from './schema.js';
import { issuesMessage, loadPostMedia } from './post-media.js';
import { futureTime } from './times.js';
import { renderGroup, type PostGroupView } from './view.js';

/**
 * Publish a draft: a DRAFT root (else 409 not_a_draft) is checked again against the
 * creator's live rules with the reviewed `content`/`settings` when given (a failure leaves the draft
 * as it was), stores them, spends a unit of the post cap and enters QUEUE for now or `scheduledFor`.
 */
export async function publishDraft(deps: CoreDeps, scope: Scope, input: PublishPostInput): Promise<PostGroupView> {
  const root = await findRootForChange(deps, scope, input.id, 'Publish');
  requireDraft(root);
  const now = deps.now();
  const scheduledFor = input.mode === 'schedule' ? futureTime(input.scheduledFor ?? '', now, ['scheduledFor']) : now;
  await withPostLeases(deps, [root._id], async () => {
    const draft = await findWorkspacePost(deps, scope, root._id);
    requireDraft(draft);
    const content = input.content ?? draft.content;
    const group = await loadGroup(deps, scope, draft.groupId);
    const replies = group.children.map((child) => ({ text: child.content }));
    const settings = await checkedSettings(deps, scope, draft, input, content, replies);
    const capSpend = await spendPostCap(deps, scope, draft._id);
    // The engine publishes later; the trail's entry for it names whoever approved it here.
    const requestedBy = requesterOf(scope);
    const queued: PostDoc = {
      ...draft,
      content,
      settings,
      state: 'QUEUE',
      scheduledFor,
      dueAt: scheduledFor,
      capSpend,
      requestedBy,
      updatedAt: now,
    };
    try {
      // Replies first: a root in QUEUE with replies still in DRAFT would publish without them.
      for (const child of group.children) {
        await deps.db.posts.updateOne({ _id: child._id }, { $set: { state: 'QUEUE', updatedAt: now } });
      }
      await deps.db.posts.updateOne(
        { _id: draft._id },
        {
          $set: {
            content,
            settings,
            state: 'QUEUE',
            scheduledFor,
            dueAt: scheduledFor,
            capSpend,
            requestedBy,
            updatedAt: now,
          },
        },
      );
    } catch (error) {
      await refundPostCap(deps, queued);
      throw error;
    }
    const provider = await providerOfPlatform(deps, scope.workspaceId, draft.platformId);
    await recordAudit(deps, scope, {
      action: 'post.approved',
      subject: { type: 'post', id: draft._id },
      details: { provider, mode: input.mode, scheduledFor: scheduledFor.toISOString() },
      // A draft is approved once; the time tells apart a later approval should it become a draft again.
      occurrence: String(now.getTime()),
    });
    await enqueueOrLeaveToSweep(deps, queued);
  });
  return renderGroup(deps, await loadGroup(deps, scope, root.groupId));
}

function requireDraft(post: PostDoc): void {
  if (post.state !== 'DRAFT') {
    throw new AppError('not_a_draft', `Only a draft can be published; this post is ${post.state}.`);
  }
}

/**
 * The settings to store, after checking the post as it would be published. Issues on what the
 * input sent are at their input path; issues on what the draft already holds are marked `stored`
 * at the post's own field path (['mediaIds', 0], ['settings', ...] when no settings were sent,
 * ['integrationId']).
 */
async function checkedSettings(
  deps: CoreDeps,
  scope: Scope,
  draft: PostDoc,
  input: PublishPostInput,
  content: string,
  threadReplies: readonly unknown[],
): Promise<Record<string, unknown>> {
  const platform = await deps.db.platforms.findOne({ _id: draft.platformId });
  if (!platform || platform.workspaceId !== scope.workspaceId) {
    const account = platform ? `${deps.providers.of(platform).name} account` : 'account';
    throw new AppError('conflict', `This draft's ${account} is no longer connected to this workspace.`);
  }
  const provider = deps.providers.of(platform);
  const loaded = await loadPostMedia(deps, scope, draft.mediaIds);
  const { issues, settings } = await provider.rules.checkPost(
    deps,
    platform,
    { content, settings: input.settings ?? draft.settings, threadReplies },
    loaded,
    'request',
  );
  if (issues.length === 0) return settings;
  const sent = (field: string | number | undefined): boolean =>
    (field === 'content' && input.content !== undefined) || (field === 'settings' && input.settings !== undefined);
  const details: IssueDetail[] = issues.map((issue) => ({
    ...issue,
    ...(sent(issue.path[0])
      ? {}
      : {
          stored: true as const,
          path: issue.path[0] === 'platformId' ? ['integrationId', ...issue.path.slice(1)] : issue.path,
        }),
  }));
  throw new AppError('invalid_request', issuesMessage('The draft', provider.name, issues), details);
}
