import type { Provider } from '../port.js';

/**
 * Instagram's carousel slides: 4:5 at 1080x1350, the tallest image a feed post takes (0.8). The feed shows
 * the whole image with its buttons below it, so little covers it: the "1/N" counter at the top right (110 px
 * clear at the top), the tagged-people badge and the shopping bag at the bottom left (150 px at the bottom),
 * and 90 px at each side, which also keeps text clear of the profile grid's 3:4 crop (34 px a side).
 * Reasons and sources: docs/decisions.md, "Issue 33: slides framed per network".
 */
export const INSTAGRAM_FRAMES: Provider['frames'] = Object.freeze({
  slides: Object.freeze({
    width: 1080,
    height: 1350,
    safeArea: Object.freeze({ top: 110, right: 90, bottom: 150, left: 90 }),
  }),
});
