import type { AiStack } from './ai.js';
import { creatorTenant } from './ai.js';
import { connectedInstagram } from './instagram.js';

/**
 * A tenant with a TikTok account and an Instagram account, both connected through their emulators (the stack
 * started with `instagram: true`).
 */
export async function twoNetworks(stack: AiStack) {
  if (!stack.ig) throw new Error('start the stack with instagram: true');
  const { tenant, platform } = await creatorTenant(stack);
  const { platform: carousel } = await connectedInstagram(stack.t, stack.ig, tenant, { username: 'carousel.maker' });
  return { tenant, tiktok: platform, carousel };
}

/** A composited slide and one network's slides, as composite answers them. */
export type Slide = { index: number; mediaId: string; publicUrl: string; previewUrl: string };
export type Framed = { provider: string; platformIds: string[]; width: number; height: number; slides: Slide[] };

/** A short slideshow: a hook and two body slides of different lengths. */
export const CAPTIONS = [
  'Five mornings that changed how I work',
  'Wake up before the phone does: no screen for the first hour, a glass of water and ten minutes outside',
  'Write the one thing that matters today on paper, then do it first',
];
