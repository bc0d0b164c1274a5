import type { ImageRendering } from '../../port.js';
import { instagramFitOf } from './fit.js';
import { INSTAGRAM_LIMITS as L } from './limits.js';

/** Instagram takes JPEGs within its aspect ratios and width: what Postdeck renders a post's images to. */
export const INSTAGRAM_IMAGE_RENDERING: ImageRendering = {
  limits: { minAspect: L.minAspect, maxAspect: L.maxAspect, maxWidth: L.imageMaxWidth, jpegOnly: true },
  fitOf: instagramFitOf,
};
