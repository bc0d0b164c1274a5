import type { CoreDeps, Scope } from '../context.js';
import { AppError, notFound, toAppError, type ErrorCode, type IssueDetail } from '../errors.js';
import type { PlatformDoc, ProviderId } from '../platforms/documents.js';
import type { LoadedMedia } from '../providers/port.js';
import { issuesMessage } from './post-media.js';
import type { CreatePostsInput } from './schema.js';
import { settingsForNetwork } from './settings-per-network.js';

/** A platform that gets no post: which, where it stands in the request, and why. */
export type PlatformFailure = { ok: false; platformId: string; index: number; error: AppError };
/** One platform's check: its settings as they will be stored, or why it gets no post. */
export type PlatformCheck = { ok: true; platform: PlatformDoc; settings: Record<string, unknown> } | PlatformFailure;

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
