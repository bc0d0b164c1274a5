import type { Filter } from 'mongodb';
import type { z } from 'zod';
import type { CoreDeps, Scope } from '../context.js';
import { findWorkspacePlatform } from '../platforms/find-platform.js';
import type { PostInsightDoc } from './documents.js';
import { narrowToAccounts, networksOf } from './network-filter.js';
import type { ListTopHooksInput, TopHookSchema, TopHooksSchema } from './schema.js';

export type TopHook = z.infer<typeof TopHookSchema>;

/**
 * The workspace's hooks ranked by the median of their posts' views at 48 hours (posts younger than
 * that are counted as pending, not ranked). Posts share a hook when its words match ignoring case
 * and spacing, in the same language, on the same network (TikTok's and Instagram's views are not one
 * measure: a hook used on both ranks once per network). Ties: more posts, then the best post, then the text.
 */
export async function listTopHooks(
  deps: CoreDeps,
  scope: Scope,
  input: ListTopHooksInput,
): Promise<z.infer<typeof TopHooksSchema>> {
  if (input.platformId !== undefined) await findWorkspacePlatform(deps, scope, input.platformId);
  const filter: Filter<PostInsightDoc> = { workspaceId: scope.workspaceId, hook: { $ne: null } };
  await narrowToAccounts(deps, scope, filter, input);
  const docs = (await deps.db.postInsights.find(filter).toArray()).filter(
    (doc) => input.language === undefined || doc.hook?.language.toLowerCase() === input.language.toLowerCase(),
  );
  const ranked = docs.filter((doc) => doc.rankingViews !== null);
  return {
    rankingAgeHours: 48,
    hooks: rankHooks(ranked, await networksOf(deps, scope)).slice(0, input.limit),
    pendingPosts: docs.filter((doc) => doc.rankingViews === null && doc.status === 'collecting').length,
  };
}

function rankHooks(docs: PostInsightDoc[], networks: Map<string, string>): TopHook[] {
  const groups = new Map<string, PostInsightDoc[]>();
  for (const doc of docs) {
    if (!doc.hook || doc.rankingViews === null) continue;
    const network = networks.get(doc.platformId) ?? '';
    const key = `${network}\u0000${doc.hook.language.toLowerCase()}\u0000${sameWords(doc.hook.text)}`;
    groups.set(key, [...(groups.get(key) ?? []), doc]);
  }
  const hooks = [...groups.values()].map(toHook);
  return hooks.sort(
    (a, b) =>
      b.medianViewsAt48h - a.medianViewsAt48h ||
      b.posts - a.posts ||
      b.bestViewsAt48h - a.bestViewsAt48h ||
      a.text.localeCompare(b.text),
  );
}

function toHook(posts: PostInsightDoc[]): TopHook {
  const best = [...posts].sort((a, b) => (b.rankingViews ?? 0) - (a.rankingViews ?? 0) || a._id.localeCompare(b._id));
  const top = best[0] as PostInsightDoc;
  const views = best.map((doc) => doc.rankingViews ?? 0);
  const styles = new Map<string, number>();
  for (const doc of best) if (doc.hook) styles.set(doc.hook.textStyleId, (styles.get(doc.hook.textStyleId) ?? 0) + 1);
  return {
    text: top.hook?.text ?? '',
    language: top.hook?.language ?? '',
    posts: posts.length,
    medianViewsAt48h: median(views),
    bestViewsAt48h: views[0] ?? 0,
    textStyles: [...styles.entries()]
      .map(([textStyleId, count]) => ({ textStyleId, posts: count }))
      .sort((a, b) => b.posts - a.posts || a.textStyleId.localeCompare(b.textStyleId)),
    postIds: best.map((doc) => doc._id),
  };
}

/** The median of values sorted highest first (the mean of the middle two, rounded, for an even count). */
function median(descending: number[]): number {
  const middle = Math.floor(descending.length / 2);
  if (descending.length % 2 === 1) return descending[middle] as number;
  return Math.round(((descending[middle - 1] as number) + (descending[middle] as number)) / 2);
}

/** The words of a hook, ignoring case and spacing. */
function sameWords(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}
