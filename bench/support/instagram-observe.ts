import type { Cluster } from './cluster.js';
import { formatStates, type PostOutcomes } from './observe.js';
import type { CreatedPost } from './seed.js';
import { line } from './util.js';

/** A published media object as the Instagram emulator's control API lists it (top-level media only). */
interface InstagramMedia {
  id: string;
  accountId: string;
  containerId: string;
  mediaType: string;
  caption: string | null;
}

/** A container as the control API lists it. */
interface InstagramContainer {
  accountId: string;
  mediaType: string;
  isCarouselItem: boolean;
}

/** What Instagram (the emulator) holds of the bench's posts. */
export interface InstagramView {
  /** Published media per bench post id (0: never published). Containers are not posts: only media count. */
  mediaPerPost: Map<string, InstagramMedia[]>;
  /** Published media on a bench account carrying no bench post's tag (should be none). */
  strays: InstagramMedia[];
  /** Bench posts published more than once. */
  duplicates: number;
  /** Containers made on the bench accounts: single images, carousel items, carousels. */
  containers: { image: number; item: number; carousel: number };
  /** media_publish calls naming a container already published (each one a duplicate Instagram refused). */
  republishAttempts: number;
  /** Injected fault calls on the bench accounts not yet consumed: faults the run never reached. */
  faultsLeft: number;
}

/** Reads the emulator's media and containers and groups the media by the bench post whose tag (and account) they carry. */
export async function readInstagram(cluster: Cluster, posts: readonly CreatedPost[]): Promise<InstagramView> {
  const control = async <T>(path: string) => (await (await fetch(`${cluster.instagram.url}${path}`)).json()) as T;
  const { media } = await control<{ media: InstagramMedia[] }>('/__control/media');
  const { containers } = await control<{ containers: InstagramContainer[] }>('/__control/containers');
  const { republishAttempts } = await control<{ republishAttempts: number }>('/__control/requests');
  const { accounts: states } = await control<{ accounts: { id: string; faults: { times: number }[] }[] }>(
    '/__control/accounts',
  );
  const byKey = new Map(posts.map((p) => [`${p.openId} ${p.tag}`, p.postId]));
  const accounts = new Set(posts.map((p) => p.openId));
  const mediaPerPost = new Map<string, InstagramMedia[]>(posts.map((p) => [p.postId, []]));
  const strays: InstagramMedia[] = [];
  for (const item of media) {
    if (!accounts.has(item.accountId)) continue;
    const tag = /bench-[0-9a-f-]{36}/.exec(item.caption ?? '')?.[0];
    const postId = tag && byKey.get(`${item.accountId} ${tag}`);
    if (postId) mediaPerPost.get(postId)?.push(item);
    else strays.push(item);
  }
  const made = { image: 0, item: 0, carousel: 0 };
  for (const c of containers.filter((c) => accounts.has(c.accountId))) {
    if (c.isCarouselItem) made.item += 1;
    else if (c.mediaType === 'CAROUSEL') made.carousel += 1;
    else made.image += 1;
  }
  const duplicates = [...mediaPerPost.values()].filter((list) => list.length > 1).length;
  const faultsLeft = states
    .filter((a) => accounts.has(a.id))
    .reduce((sum, a) => sum + a.faults.reduce((n, f) => n + f.times, 0), 0);
  return { mediaPerPost, strays, duplicates, containers: made, republishAttempts, faultsLeft };
}

/**
 * Prints what Postdeck and Instagram recorded of the Instagram bench posts; answers the problems found: a post
 * published twice, a stray, a PUBLISHED post not at Instagram exactly once (the caller checks settling).
 */
export async function reportInstagram(
  cluster: Cluster,
  posts: readonly CreatedPost[],
  outcomes: PostOutcomes,
): Promise<string[]> {
  const ids = new Set(posts.map((p) => p.postId));
  const docs = outcomes.docs.filter((d) => ids.has(d._id));
  const byState = new Map<(typeof docs)[number]['state'], number>();
  for (const d of docs) byState.set(d.state, (byState.get(d.state) ?? 0) + 1);
  const view = await readInstagram(cluster, posts);
  const perPost = [...view.mediaPerPost.values()].map((list) => list.length);
  const histogram = new Map<number, number>();
  for (const n of perPost) histogram.set(n, (histogram.get(n) ?? 0) + 1);
  const carousels = posts.filter((p) => (p.mediaIds?.length ?? 1) > 1).length;

  line('Instagram posts', `${posts.length} (${posts.length - carousels} single images, ${carousels} carousels)`);
  line('Instagram posts by state', formatStates(byState));
  line(
    'Instagram media per post',
    [...histogram.entries()]
      .sort()
      .map(([n, count]) => `${n}: ${count} posts`)
      .join(', '),
  );
  line('max Instagram media for one post', Math.max(0, ...perPost));
  line('Instagram media without a bench post', view.strays.length);
  const { image, item, carousel } = view.containers;
  line('Instagram containers made', `${image} single, ${carousel} carousels of ${item} items`);
  line('media_publish of a published container', view.republishAttempts);
  line('injected fault calls never reached', view.faultsLeft);

  const problems: string[] = [];
  if (view.duplicates > 0) problems.push(`${view.duplicates} posts published twice at Instagram`);
  if (view.strays.length > 0) problems.push(`${view.strays.length} Instagram media match no bench post`);
  const missing = docs.filter(
    (d) => d.state === 'PUBLISHED' && (view.mediaPerPost.get(d._id)?.length ?? 0) !== 1,
  ).length;
  if (missing > 0) problems.push(`${missing} PUBLISHED posts not at Instagram exactly once`);
  return problems;
}
