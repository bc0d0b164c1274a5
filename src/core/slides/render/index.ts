import sharp, { type Metadata } from 'sharp';
import { buildOverlay, type Overlay } from './effects.js';
import { framedImage, frameFor } from './frame.js';
import { FRAME_SIZES, HOOK_CENTRE_SHARE, SAFE_ZONES, type Box, type Frame } from './safe-zones.js';
import { MIN_SIZE_SHARE, SIZE_SHARES, type CaptionSize, type TextEffect, type TextStyleId } from './styles.js';
import { drawTextMask } from './text-mask.js';

export { CAPTION_SIZES, TEXT_EFFECTS, TEXT_STYLE_IDS, SIZE_SHARES } from './styles.js';
export type { CaptionSize, TextEffect, TextStyleId } from './styles.js';
export { FRAME_SIZES, SAFE_ZONES, type Box, type Frame } from './safe-zones.js';
export { prepareFonts } from './fonts.js';

export interface RenderSlideInput {
  /** Any image sharp reads, any size. */
  image: Buffer;
  caption: string;
  textStyleId: TextStyleId;
  captionSize: CaptionSize;
  textEffect: TextEffect;
  /** Slide 0 is the hook: placed where viewers look first. */
  role: 'hook' | 'body';
  /** Picks the CJK variant for Han characters (ja, ko, zh, zh-TW). */
  language?: string;
}

export interface SlideWarning {
  code: 'text_shrunk';
  message: string;
  requestedPx: number;
  usedPx: number;
}

export interface RenderedSlide {
  jpeg: Buffer;
  width: number;
  height: number;
  frame: Frame;
  /** Where the caption's layer (outline or box included) landed. */
  textBox: Box;
  warnings: SlideWarning[];
}

/**
 * Bakes a caption onto an image: frames it 9:16 or 4:5 (at most 1080 px on the short side), wraps
 * the caption to the safe zone's width at its size, shrinks it in steps while it is taller than the
 * zone (saying so in a warning), places it (the hook about 30% down, others in the zone's middle)
 * and encodes one JPEG.
 */
export async function renderSlide(input: RenderSlideInput): Promise<RenderedSlide> {
  const meta = await sharp(input.image).metadata();
  const source = orientedSize(meta);
  const frame = frameFor(source.width, source.height);
  const size = FRAME_SIZES[frame];
  const zone = SAFE_ZONES[frame];
  const requestedPx = Math.round(SIZE_SHARES[input.captionSize] * size.height);
  const [base, fitted] = await Promise.all([
    framedImage(input.image, frame, source),
    fitCaption(input, requestedPx, zone, size.height),
  ]);
  const { overlay, px } = fitted;
  const textBox = place(overlay, zone, input.role, size.height);
  const jpeg = await base
    .composite([
      {
        input: overlay.data,
        raw: { width: overlay.width, height: overlay.height, channels: 4 },
        left: textBox.left,
        top: textBox.top,
      },
    ])
    .jpeg({ quality: 88 })
    .toBuffer();
  const warnings: SlideWarning[] =
    px < requestedPx
      ? [
          {
            code: 'text_shrunk',
            message: `The caption did not fit inside the safe zone at ${input.captionSize} size (${requestedPx} px) and was drawn at ${px} px; shorten it or pick a smaller size`,
            requestedPx,
            usedPx: px,
          },
        ]
      : [];
  return { jpeg, width: size.width, height: size.height, frame, textBox, warnings };
}

/** The smallest size ever drawn. */
const MIN_PX = 10;

/** The caption's layer at the largest size from `requestedPx` down that fits the zone (never below the floor). */
async function fitCaption(
  input: RenderSlideInput,
  requestedPx: number,
  zone: Box,
  frameHeight: number,
): Promise<{ overlay: Overlay; px: number }> {
  // Below the usual floor only when nothing else fits (a wall of long words): inside the zone beats legible-but-cut.
  const floor = Math.round(MIN_SIZE_SHARE * frameHeight);
  let px = requestedPx;
  for (;;) {
    // The outline or box grows the block; wrap narrower by as much so the whole layer fits.
    const margin = Math.round(px * (input.textEffect === 'box' ? 0.4 : 0.18)) * 2;
    const mask = await drawTextMask(input.textStyleId, input.caption, input.language, px, zone.width - margin);
    const overlay = await buildOverlay(mask, input.textEffect, px);
    if ((overlay.height <= zone.height && overlay.width <= zone.width) || px <= MIN_PX) return { overlay, px };
    // Height grows about with the square of the size: aim straight at a fitting size, then step down.
    const aim = Math.floor(px * Math.min(0.92, Math.sqrt(zone.height / overlay.height)));
    px = Math.max(px > floor ? floor : MIN_PX, aim);
  }
}

/** The layer's position: centred across the zone, vertically at the hook line or the zone's middle, kept inside. */
function place(overlay: Overlay, zone: Box, role: RenderSlideInput['role'], frameHeight: number): Box {
  const centreY = role === 'hook' ? frameHeight * HOOK_CENTRE_SHARE : zone.top + zone.height / 2;
  const top = clamp(Math.round(centreY - overlay.height / 2), zone.top, zone.top + zone.height - overlay.height);
  const left = clamp(
    Math.round(zone.left + (zone.width - overlay.width) / 2),
    zone.left,
    zone.left + zone.width - overlay.width,
  );
  return { left, top, width: overlay.width, height: overlay.height };
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(value, Math.max(min, max)));
}

/** The image's size as shown (EXIF orientations 5 to 8 turn it a quarter). */
function orientedSize(meta: Metadata): { width: number; height: number } {
  const width = meta.width ?? 1;
  const height = meta.height ?? 1;
  return (meta.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
}
