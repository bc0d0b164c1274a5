import { setTimeout as sleep } from 'node:timers/promises';
import type { PostState } from '../../src/core/posts/documents.js';
import type { Cluster } from './cluster.js';
import type { CreatedPost } from './seed.js';

/** One publish as the emulator's control API lists it (the fields the bench reads). */
export interface EmulatorPost {
  publishId: string;
  openId: string;
  request: unknown;
  status: string;
  failReason: string | null;
  initReceivedAtMs: number;
}

/** What TikTok (the emulator) saw of the bench's posts. */
export interface EmulatorView {
  /** Emulator publishes per bench post id (0: never reached TikTok), failed ones included. */
  publishesPerPost: Map<string, EmulatorPost[]>;
  /**
   * Of those, the publishes TikTok did not end FAILED: what is (or may still become) a post on the
   * account. A FAILED publish created nothing ("retry if the URL is valid" for a pull that failed), so
   * a post published again after one is still at TikTok once.
   */
  postedPerPost: Map<string, EmulatorPost[]>;
  /** Publishes carrying no bench post's tag on a bench account (should be none). */
  strays: EmulatorPost[];
  /** Init requests (any answer) on the bench accounts. */
  initRequests: number;
  /** Bench posts at TikTok more than once (publishes not FAILED). */
  duplicates: number;
}

/** Reads the emulator's posts and groups them by the bench post whose tag (and account) they carry. */
export async function readEmulator(cluster: Cluster, posts: readonly CreatedPost[]): Promise<EmulatorView> {
  const answer = await fetch(`${cluster.emulator.url}/__control/posts`);
  const body = (await answer.json()) as { posts: EmulatorPost[]; initRequests: Record<string, number> };
  const byKey = new Map(posts.map((p) => [`${p.openId} ${p.tag}`, p.postId]));
  const accounts = new Set(posts.map((p) => p.openId));
  const publishesPerPost = new Map<string, EmulatorPost[]>(posts.map((p) => [p.postId, []]));
  const strays: EmulatorPost[] = [];
  for (const publish of body.posts) {
    if (!accounts.has(publish.openId)) continue;
    const tag = /bench-[0-9a-f-]{36}/.exec(JSON.stringify(publish.request))?.[0];
    const postId = tag && byKey.get(`${publish.openId} ${tag}`);
    if (postId) publishesPerPost.get(postId)?.push(publish);
    else strays.push(publish);
  }
  const initRequests = Object.entries(body.initRequests)
    .filter(([openId]) => accounts.has(openId))
    .reduce((sum, [, count]) => sum + count, 0);
  const postedPerPost = new Map(
    [...publishesPerPost].map(([postId, list]) => [postId, list.filter((publish) => publish.status !== 'FAILED')]),
  );
  const duplicates = [...postedPerPost.values()].filter((list) => list.length > 1).length;
  return { publishesPerPost, postedPerPost, strays, initRequests, duplicates };
}

/** Post states and error texts of the bench posts, as Postdeck recorded them. */
export interface PostOutcomes {
  byState: Map<PostState, number>;
  errors: Map<string, number>;
  docs: { _id: string; state: PostState; errorText: string | null }[];
}

export async function readOutcomes(cluster: Cluster, posts: readonly CreatedPost[]): Promise<PostOutcomes> {
  const docs = await cluster.db.posts
    .find({ _id: { $in: posts.map((p) => p.postId) } }, { projection: { state: 1, errorText: 1 } })
    .toArray();
  const byState = new Map<PostState, number>();
  const errors = new Map<string, number>();
  for (const doc of docs) {
    byState.set(doc.state, (byState.get(doc.state) ?? 0) + 1);
    if (doc.state === 'ERROR')
      errors.set(doc.errorText ?? '(no errorText)', (errors.get(doc.errorText ?? '(no errorText)') ?? 0) + 1);
  }
  return { byState, errors, docs };
}

/** Terminal for the bench: the engine is done with the post. */
export function isSettled(state: PostState): boolean {
  return state === 'PUBLISHED' || state === 'ERROR';
}

/**
 * Waits until every bench post is PUBLISHED or ERROR or `timeoutMs` passed, reading nothing before
 * `quietUntil` (the end of the due minute: the reads would load the database the engine is being
 * measured on) and then every 5 s, with a progress line each time.
 */
export async function waitUntilSettled(
  cluster: Cluster,
  posts: readonly CreatedPost[],
  options: { quietUntil: Date; timeoutMs: number },
): Promise<{ outcomes: PostOutcomes; settled: boolean }> {
  await sleep(Math.max(0, options.quietUntil.getTime() - Date.now()));
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const outcomes = await readOutcomes(cluster, posts);
    const settled = outcomes.docs.filter((d) => isSettled(d.state)).length;
    console.log(`  progress: ${settled}/${posts.length} settled (${formatStates(outcomes.byState)})`);
    if (settled === posts.length) return { outcomes, settled: true };
    if (Date.now() > deadline) return { outcomes, settled: false };
    await sleep(5_000);
  }
}

export function formatStates(byState: Map<PostState, number>): string {
  return (
    [...byState.entries()]
      .sort()
      .map(([state, count]) => `${state} ${count}`)
      .join(', ') || 'none'
  );
}
