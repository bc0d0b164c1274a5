import { randomUUID } from 'node:crypto';
import { recordAudit, requesterOf } from '../audit/record.js';
import type { CoreDeps, Scope } from '../context.js';
import { domainEvent, relayEvents } from '../events/relay.js';
import type { PlatformDoc, ProviderId } from '../platforms/documents.js';
import type { PostDoc, PostState } from './documents.js';
import { AppError, isDuplicateKeyError, notFound, toAppError, type ErrorCode, type IssueDetail } from '../errors.js';
import { refundPostCap, spendPostCap } from './post-cap.js';
import { enqueueOrLeaveToSweep } from './queue-post.js';
import type { CreatePostsInput, CreatePostsResult } from './schema.js';
import type { LoadedMedia } from '../providers/port.js';
import { issuesMessage, loadPostMedia } from './post-media.js';
import { groupOfEarlierRun, seededGroupIds, type GroupIds } from './earlier-run.js';
import { futureTime } from './times.js';
import { settingsForNetwork } from './settings-per-network.js';
import { toPost, type PostGroupView } from './view.js';

/** For callers that must create each platform's post at most once across retries (generation jobs). */
export interface CreatePostsOptions {
  /** The root post and group id to use for a platform, instead of fresh ones: a second run gets the first one's. */
  ids?: (platformId: string) => { rootId: string; groupId: string };
  /** The generation job the posts come from (a draft's event names it). */
  generationJobId?: string;
}

type Entry = CreatePostsResult['results'][number];
/** A platform that gets no post: which, where it stands in the request, and why. */
export type PlatformFailure = { ok: false; platformId: string; index: number; error: AppError };
type Outcome = { ok: true; entry: Entry } | PlatformFailure;
/** One platform's check: its settings as they will be stored, or why it gets no post. */
export type PlatformCheck = { ok: true; platform: PlatformDoc; settings: Record<string, unknown> } | PlatformFailure;

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
      const post = await commit(deps, scope, input, each.platform, each.settings, scheduledFor, now, {
        ...ids,
        ...options.ids?.(platformId),
        generationJobId: options.generationJobId,
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

/**
 * Checks the post for each platform against that platform's live rules, every platform on its own.
 * Generation checks the post its job will make with this too, before anything is spent.
 */
export async function checkPlatforms(
  deps: CoreDeps,
  scope: Scope,
  input: Pick<CreatePostsInput, 'platformIds' | 'content' | 'settings' | 'threadReplies'>,
  loaded: LoadedMedia,
): Promise<PlatformCheck[]> {
  // The networks of the request decide which settings keys each one leaves to the others.
  const named = await deps.db.platforms
    .find({ _id: { $in: input.platformIds }, workspaceId: scope.workspaceId }, { projection: { provider: 1 } })
    .toArray();
  const networks = [...new Set(named.map((doc) => doc.provider))];
  return Promise.all(
    input.platformIds.map((platformId, index) =>
      prepare(deps, scope, input, loaded, platformId, index, networks).then(
        (value): PlatformCheck => ({ ok: true, ...value }),
        (error: unknown): PlatformCheck => ({
          ok: false,
          platformId,
          index,
          error: toAppError(error, deps.logger, 'creating a post', { platformId }),
        }),
      ),
    ),
  );
}

/** Loads the platform and checks the post against its live rules; throws the platform's failure. */
async function prepare(
  deps: CoreDeps,
  scope: Scope,
  input: Pick<CreatePostsInput, 'content' | 'settings' | 'threadReplies'>,
  loaded: LoadedMedia,
  platformId: string,
  index: number,
  networks: readonly ProviderId[],
): Promise<{ platform: PlatformDoc; settings: Record<string, unknown> }> {
  const platform = await deps.db.platforms.findOne({ _id: platformId });
  if (!platform || platform.workspaceId !== scope.workspaceId) throw notFound('Platform');
  const provider = deps.providers.of(platform);
  const { issues, settings } = await provider.rules.checkPost(
    deps,
    platform,
    {
      content: input.content,
      settings: settingsForNetwork(input.settings, platform.provider, networks),
      threadReplies: input.threadReplies,
    },
    loaded,
    'request',
  );
  if (issues.length > 0) {
    const details = issues.map((issue) => ({
      ...issue,
      path: issue.path[0] === 'platformId' ? ['platformIds', index, ...issue.path.slice(1)] : issue.path,
    }));
    throw new AppError(
      'invalid_request',
      issuesMessage(`The post for ${label(platform)}`, provider.name, issues),
      details,
    );
  }
  return { platform, settings };
}

/** Stores one platform's group (spending the cap for a queued root first) and queues it. */
async function commit(
  deps: CoreDeps,
  scope: Scope,
  input: CreatePostsInput,
  platform: PlatformDoc,
  settings: Record<string, unknown>,
  scheduledFor: Date | null,
  now: Date,
  { rootId, groupId, replyId, generationJobId }: GroupIds & { generationJobId: string | undefined },
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
    mediaIds: input.mediaIds,
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

function label(platform: PlatformDoc): string {
  return platform.displayHandle ? `@${platform.displayHandle}` : `account ${platform._id}`;
}

/** The error answered when no platform got a post. */
export function combinedFailure(failures: readonly PlatformFailure[]): AppError {
  const [first] = failures;
  if (failures.length === 1 && first) return first.error;
  const codes = new Set(failures.map((failure) => failure.error.code));
  const code: ErrorCode = codes.size === 1 ? (first?.error.code ?? 'invalid_request') : 'invalid_request';
  const details: (IssueDetail & { platformId: string })[] = failures.flatMap((failure) =>
    failure.error.details && failure.error.details.length > 0
      ? failure.error.details.map((detail) => ({ ...detail, platformId: failure.platformId }))
      : [
          {
            path: ['platformIds', failure.index],
            message: failure.error.message,
            platformId: failure.platformId,
          },
        ],
  );
  const retryAfter = Math.max(0, ...failures.map((failure) => failure.error.retryAfterSeconds ?? 0));
  return new AppError(
    code,
    `No post was created: ${failures.map((failure) => `${failure.platformId}: ${failure.error.message}`).join(' | ')}`,
    details,
    code === 'rate_limited' && retryAfter > 0 ? retryAfter : undefined,
  );
}
