import { createHash } from 'node:crypto';

/** A post's four public counters, as the Video Object names them (contract 8.1). */
export interface VideoCounts {
  viewCount: number;
  likeCount: number;
  commentCount: number;
  shareCount: number;
}

/** The names of VideoCounts, in the order the control API lists them. */
export const COUNT_NAMES = ['viewCount', 'likeCount', 'commentCount', 'shareCount'] as const;

const MINUTE_MS = 60_000;

/** Uniform numbers in [0, 1) drawn from SHA-256 of the seed and the post id: the same pair always gives the same. */
function uniforms(seed: string, postId: string): number[] {
  const digest = createHash('sha256').update(`${seed}:${postId}`).digest();
  return Array.from({ length: 5 }, (_, i) => digest.readUInt32BE(i * 4) / 2 ** 32);
}

/**
 * The counts of post `postId` at `ageMinutes` after it completed, on the curve of contract 8.4: a ceiling of
 * views between 200 and 200,000 (log-uniform) approached as 1 − e^(−age/τ) with τ between 2 and 12 hours, so most
 * views come in the first hours; likes, comments and shares are fixed shares of the views. Every count is the
 * floor of a function that only grows with age, so counts never decrease.
 */
export function countsAt(seed: string, postId: string, ageMinutes: number): VideoCounts {
  const [u1 = 0, u2 = 0, u3 = 0, u4 = 0, u5 = 0] = uniforms(seed, postId);
  const ceiling = 200 * 10 ** (3 * u1);
  const tauMinutes = (2 + 10 * u2) * 60;
  const age = Math.max(0, ageMinutes);
  const views = ceiling * (1 - Math.exp(-age / tauMinutes));
  return {
    viewCount: Math.floor(views),
    likeCount: Math.floor(views * (0.03 + 0.09 * u3)),
    commentCount: Math.floor(views * (0.002 + 0.01 * u4)),
    shareCount: Math.floor(views * (0.001 + 0.01 * u5)),
  };
}

/** Whole minutes from `fromMs` to `nowMs` (0 before it): the curve moves once a minute. */
export function ageMinutes(fromMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - fromMs) / MINUTE_MS));
}
