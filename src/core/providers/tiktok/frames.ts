import type { Provider } from '../port.js';

/**
 * TikTok's photo slides: 9:16 at 1080x1920, text clear of the top bar (250 px), the right-hand buttons
 * (170 px), the caption and username area (420 px) and a 90 px left margin (docs/decisions.md, "Caption
 * rendering"; the same zone the renderer gives a 9:16 source).
 */
export const TIKTOK_FRAMES: Provider['frames'] = Object.freeze({
  slides: Object.freeze({
    width: 1080,
    height: 1920,
    safeArea: Object.freeze({ top: 250, right: 170, bottom: 420, left: 90 }),
  }),
});
