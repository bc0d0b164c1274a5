import type { CoreDeps, Scope } from '../context.js';
import { listTopHooks } from '../insights/top-hooks.js';
import type { HookExamples } from './hook-examples-schema.js';
import { languageName } from './languages.js';

/** How many of the workspace's best hooks a caption prompt shows: enough to see a pattern, few enough to not copy one. */
export const HOOK_EXAMPLE_COUNT = 5;

const OFF: HookExamples = Object.freeze({ enabled: false, hooks: [], note: null });

/**
 * The workspace's best hooks in the caption's language, when enabled. Only the caller's workspace
 * is read (`listTopHooks` filters by it); hooks of other languages would pull the captions off it.
 */
export async function pickHookExamples(
  deps: CoreDeps,
  scope: Scope,
  enabled: boolean,
  language: string,
): Promise<HookExamples> {
  if (!enabled) return OFF;
  const ranked = await listTopHooks(deps, scope, { language, limit: HOOK_EXAMPLE_COUNT });
  const hooks = ranked.hooks.map(({ text, language: hookLanguage, medianViewsAt48h, bestViewsAt48h, posts }) => ({
    text,
    language: hookLanguage,
    medianViewsAt48h,
    bestViewsAt48h,
    posts,
  }));
  if (hooks.length > 0) return { enabled, hooks, note: null };
  const waiting =
    ranked.pendingPosts > 0
      ? ` ${ranked.pendingPosts === 1 ? '1 post with a hook is' : `${ranked.pendingPosts} posts with a hook are`} younger than 48 hours and not ranked yet.`
      : ' Hooks are ranked once a carousel composited by Postdeck has been published for 48 hours and its views collected.';
  return {
    enabled,
    hooks: [],
    note: `No hooks in ${languageName(language)} are ranked yet for this workspace, so the captions were written without examples.${waiting}`,
  };
}
