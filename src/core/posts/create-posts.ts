import { randomUUID } from 'node:crypto';
import { recordAudit, requesterOf } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import { domainEvent, relayEvents } from '../events/relay.js';
import type { PlatformDoc } from '../platforms/documents.js';
import type { PostDoc, PostState } from './documents.js';
import { isDuplicateKeyError, toAppError } from '../errors.js';
import { checkPlatforms, combinedFailure, type PlatformFailure } from './check-platforms.js';
import { refundPostCap, spendPostCap } from './post-cap.js';
import { enqueueOrLeaveToSweep } from './queue-post.js';
import type { CreatePostsInput, CreatePostsResult } from './schema.js';
import { loadPostMedia } from './post-media.js';
import { groupOfEarlierRun, seededGroupIds, type GroupIds } from './earlier-run.js';
import { mediaIdsForNetwork } from './network-images.js';
import { futureTime } from './times.js';
import { toPost, type PostGroupView } from './view.js';

/** For callers that must create each platform's post at most once across retries (generation jobs). */
export interface CreatePostsOptions {
  /** The root post and group id to use for a platform, instead of fresh ones: a second run gets the first one's. */
  ids?: (platformId: string) => { rootId: string; groupId: string };
  /** The generation job the posts come from (a draft's event names it). */
  generationJobId?: string;
}

type Entry = CreatePostsResult['results'][number];
type Outcome = { ok: true; entry: Entry } | PlatformFailure;

/**
 * Create posts: one post group per platform, each platform on its own. A platform whose account is
 * not usable or whose post breaks its network's rules fails alone; the others are created. Now and
 * schedule spend one unit of the monthly post cap per root (refunded if storing fails). When every
 * platform failed, the failure itself is thrown (several: one code if they share it, else
 * invalid_request, each detail with its `platformId`).
 */
export async function createPosts(
  deps: CoreDeps,
  scope: Scope,
  input: CreatePostsInput,
  options: CreatePostsOptions = {},
): Promise<CreatePostsResult> {
  const now = deps.now();
  const scheduledFor = postTime(input, now);
  const loaded = await loadPostMedia(deps, scope, input.mediaIds);
  const prepared = await checkPlatforms(deps, scope, input, loaded);
  // Committed in request order, so when the cap runs out the first platforms get the units.
  const outcomes: Outcome[] = [];
  for (const [index, each] of prepared.entries()) {
    const platformId = input.platformIds[index] as string;
    if (!each.ok) {
      outcomes.push(each);
      continue;
    }
    try {
      const ids: GroupIds = seededGroupIds(scope, platformId) ?? {
        rootId: randomUUID(),
        groupId: randomUUID(),
        replyId: () => randomUUID(),
      };
      // A job waits for a decode slot; a request is refused when they are all taken.
      const whenBusy = options.generationJobId === undefined ? 'refuse' : 'wait';
      const mediaIds = await mediaIdsForNetwork(
        deps,
        scope,
        each.platform,
        input.mediaIds,
        loaded,
        each.settings,
        whenBusy,
      );
      const post = await commit(deps, scope, input, each.platform, each.settings, scheduledFor, now, {
        ...ids,
        ...options.ids?.(platformId),
        generationJobId: options.generationJobId,
        mediaIds,
      });
      outcomes.push({ ok: true, entry: { platformId, status: 'created', post } });
    } catch (error) {
      outcomes.push({
        ok: false,
        platformId,
        index,
        error: toAppError(error, deps.logger, 'creating a post', { platformId }),
      });
    }
  }
  const failures = outcomes.filter((outcome) => !outcome.ok);
  if (failures.length === outcomes.length) throw combinedFailure(failures);
  return {
    results: outcomes.map((outcome) =>
      outcome.ok
        ? outcome.entry
        : {
            platformId: outcome.platformId,
            status: 'failed' as const,
            error: {
              code: outcome.error.code,
              message: outcome.error.message,
              ...(outcome.error.details ? { details: outcome.error.details } : {}),
            },
          },
    ),
  };
}

/** When a post of this mode is due: the future `scheduledFor` of schedule (else 400), now, or null for a draft. */
export function postTime(input: Pick<CreatePostsInput, 'mode' | 'scheduledFor'>, now: Date): Date | null {
  if (input.mode === 'schedule') return futureTime(input.scheduledFor ?? '', now, ['scheduledFor']);
  return input.mode === 'now' ? now : null;
}

/** Stores one platform's group (spending the cap for a queued root first) and queues it; `mediaIds` are the network's. */
async function commit(
  deps: CoreDeps,
  scope: Scope,
  input: CreatePostsInput,
  platform: PlatformDoc,
  settings: Record<string, unknown>,
  scheduledFor: Date | null,
  now: Date,
  {
    rootId,
    groupId,
    replyId,
    generationJobId,
    mediaIds,
  }: GroupIds & { generationJobId: string | undefined; mediaIds: string[] },
): Promise<PostGroupView> {
  const state: PostState = input.mode === 'draft' ? 'DRAFT' : 'QUEUE';
  const base = {
    workspaceId: scope.workspaceId,
    accountId: scope.accountId,
    groupId,
    platformId: platform._id,
    state,
    releaseId: null,
    releaseUrl: null,
    errorText: null,
    capSpend: null,
    updatedAt: now,
  };
  const root: PostDoc = {
    ...base,
    _id: rootId,
    parentPostId: null,
    content: input.content,
    settings,
    mediaIds,
    scheduledFor,
    delayInMinutes: null,
    dueAt: state === 'QUEUE' ? scheduledFor : null,
    createdAt: now,
    ...(state === 'QUEUE' ? { requestedBy: requesterOf(scope) } : {}),
    // A draft waits for a person: its event, stored with it, is what puts it in front of approvers.
    ...(state === 'DRAFT'
      ? {
          events: [
            domainEvent(
              'draft.created',
              {
                workspaceId: scope.workspaceId,
                subjectId: rootId,
                actor: scope.actor,
                generationJobId,
                provider: platform.provider,
              },
              now,
            ),
          ],
        }
      : {}),
  };
  // Replies wait for their root (the engine schedules them once it is published); their createdAt
  // is a millisecond apart so the group lists them in request order.
  const children: PostDoc[] = input.threadReplies.map((reply, i) => ({
    ...base,
    _id: replyId(i),
    parentPostId: rootId,
    content: reply.text,
    settings: reply.settings ?? {},
    mediaIds: reply.mediaIds ?? [],
    scheduledFor: null,
    delayInMinutes: reply.delayInMinutes ?? null,
    dueAt: null,
    createdAt: new Date(now.getTime() + i + 1),
  }));
  root.replyIds = children.map((child) => child._id);
  if (state === 'QUEUE') root.capSpend = await spendPostCap(deps, scope, rootId);
  try {
    await deps.db.posts.insertOne(root);
  } catch (error) {
    // Nothing was stored (a root refused as a duplicate of given ids is an earlier call's post: it stays).
    await refundPostCap(deps, root);
    if (isDuplicateKeyError(error)) return groupOfEarlierRun(deps, scope, root, children);
    throw error;
  }
  try {
    if (children.length > 0) await deps.db.posts.insertMany(children);
  } catch (error) {
    // Nothing half-written: no root without its replies, no unit spent for a post that is not there.
    await deps.db.posts.deleteMany({ _id: { $in: [rootId, ...children.map((child) => child._id)] } });
    await refundPostCap(deps, root);
    throw error;
  }
  await recordAudit(deps, scope, {
    action: 'post.created',
    subject: { type: 'post', id: rootId },
    details: { mode: input.mode, provider: platform.provider, platformId: platform._id, replies: children.length },
  });
  if (state === 'QUEUE') await enqueueOrLeaveToSweep(deps, root);
  void relayEvents(deps, root.events ?? []);
  return { root: toPost(root), children: children.map((child) => toPost(child)) };
}
