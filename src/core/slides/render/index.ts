import sharp, { type Metadata } from 'sharp';
import { AppError } from '../../errors.js';
import { requireWithinPixelCap } from '../../media/preview.js';
import { buildLayer, effectInset, paintLayer, textColourOf, type CaptionLayer } from './effects.js';
import { framedCanvas, frameFor } from './frame.js';
import type { SlideFrame } from '../../providers/port.js';
import { HOOK_CENTRE_SHARE, sameFrame, sourceFrame, zoneOf, type Box } from './safe-zones.js';
import { MIN_SIZE_SHARE, SIZE_SHARES, type CaptionSize, type TextEffect, type TextStyleId } from './styles.js';
import { layoutCaption } from './layout.js';
import { drawLayout, lineSpacing } from './text-mask.js';

export { CAPTION_SIZES, TEXT_EFFECTS, TEXT_STYLE_IDS, SIZE_SHARES } from './styles.js';
export type { CaptionSize, TextEffect, TextStyleId } from './styles.js';
export { FRAME_SIZES, SAFE_ZONES, sourceFrame, zoneOf, type Box, type Frame } from './safe-zones.js';
export { prepareFonts } from './fonts.js';
export { frameFor } from './frame.js';

export interface RenderSlideInput {
  /** Any image sharp reads, of at most MAX_IMAGE_PIXELS (checked from its header before decoding). */
  image: Buffer;
  caption: string;
  textStyleId: TextStyleId;
  captionSize: CaptionSize;
  textEffect: TextEffect;
  /** Slide 0 is the hook: placed where viewers look first. */
  role: 'hook' | 'body';
  /** Picks the CJK variant for Han characters (ja, ko, zh, zh-TW). */
  language?: string;
  /** The frame to draw in (a network's); omitted: 9:16 or 4:5 by the source's shape (`frameFor`). */
  frame?: SlideFrame | undefined;
  /** The caption laid out ahead of the photo; used when the photo turns out to have its frame. */
  prepared?: PreparedCaption;
}

/** What laying out a caption needs: everything but the photo. */
export type CaptionInput = Omit<RenderSlideInput, 'image' | 'prepared' | 'frame'>;

/**
 * A caption laid out for a frame, ready to paint: its layer, the size it fitted at and the size asked
 * for, the text of each line as drawn, and the characters left out (no bundled font draws them).
 */
export interface PreparedCaption {
  frame: SlideFrame;
  layer: CaptionLayer;
  px: number;
  requestedPx: number;
  lines: string[];
  unsupported: string[];
}

/** What was changed to draw a slide's caption: shrunk to fit, or characters left out. */
export type SlideWarning =
  | { code: 'text_shrunk'; message: string; requestedPx: number; usedPx: number }
  | { code: 'unsupported_character'; message: string; characters: string[] };

export interface RenderedSlide {
  jpeg: Buffer;
  width: number;
  height: number;
  frame: SlideFrame;
  /** Where text may go in the frame (its safe area). */
  zone: Box;
  /** Where the caption's layer (outline or box included) landed. */
  textBox: Box;
  /** The caption's lines as drawn, top to bottom. */
  lines: string[];
  warnings: SlideWarning[];
}

/**
 * Bakes a caption onto an image: frames it in `input.frame`, else 9:16 or 4:5 by its shape (at most
 * 1080 px on the short side), wraps
 * the caption to the safe zone's width at its size, shrinks it in steps while it is taller than the
 * zone (saying so in a warning), places it (the hook about 30% down, others in the zone's middle)
 * and encodes one JPEG. The caller holds a decode slot (`MediaDeps.decodes`).
 */
export async function renderSlide(input: RenderSlideInput): Promise<RenderedSlide> {
  const source = orientedSize(await readHeader(input.image));
  requireWithinPixelCap(source.width, source.height);
  const frame = input.frame ?? sourceFrame(frameFor(source.width, source.height));
  const zone = zoneOf(frame);
  // The caption is laid out while the photo decodes (they run on different threads), unless it was before.
  const [canvas, { layer, px, requestedPx, lines, unsupported }] = await Promise.all([
    framedCanvas(input.image, frame, source),
    input.prepared && sameFrame(input.prepared.frame, frame) ? input.prepared : prepareCaption(input, frame),
  ]);
  const textBox = place(layer, zone, input.role, frame.height);
  paintLayer(canvas, layer, textBox);
  const jpeg = await sharp(canvas.data, { raw: { width: canvas.width, height: canvas.height, channels: 3 } })
    .jpeg(SLIDE_JPEG)
    .toBuffer();
  const warnings: SlideWarning[] = [];
  if (px < requestedPx)
    warnings.push({
      code: 'text_shrunk',
      message: `The caption did not fit inside the safe zone at ${input.captionSize} size (${requestedPx} px) and was drawn at ${px} px; shorten it or pick a smaller size`,
      requestedPx,
      usedPx: px,
    });
  if (unsupported.length > 0)
    warnings.push({
      code: 'unsupported_character',
      message: `No bundled font can draw ${unsupported.join(', ')}, so ${unsupported.length === 1 ? 'it was' : 'they were'} left out of the caption`,
      characters: unsupported,
    });
  return { jpeg, width: frame.width, height: frame.height, frame, zone, textBox, lines, warnings };
}

/** The slides' JPEG settings (sharp's optimised Huffman coding left on: about 4% smaller on a photo). */
export const SLIDE_JPEG = Object.freeze({ quality: 88 });

/** Lays the caption out for `frame`: wrapped, fitted to the safe zone, its effect drawn. */
export async function prepareCaption(input: CaptionInput, frame: SlideFrame): Promise<PreparedCaption> {
  const textHeight = textScaleHeight(frame);
  const requestedPx = Math.round(SIZE_SHARES[input.captionSize] * textHeight);
  const fitted = await fitCaption(input, requestedPx, zoneOf(frame), textHeight);
  return { frame, requestedPx, ...fitted };
}

/**
 * The height caption sizes are shares of: a 9:16 frame's of the same width. Every frame is shown at the
 * phone's width, so a medium caption reads the same size on a 4:5 slide as on a 9:16 one.
 */
export function textScaleHeight(frame: { width: number }): number {
  return Math.round((frame.width * 16) / 9);
}

/** The share of the zone's width lines are broken to. */
const LAYOUT_SLACK = 0.98;

/** How far a layout's estimated width may exceed the zone and still be drawn to see (it is a few px off). */
const WIDTH_MARGIN = 1.02;

/** The smallest size ever drawn. */
const MIN_PX = 10;

/** The caption at the largest size from `requestedPx` down whose layer fits the zone (never below the floor). */
async function fitCaption(
  input: CaptionInput,
  requestedPx: number,
  zone: Box,
  textHeight: number,
): Promise<{ layer: CaptionLayer; px: number; lines: string[]; unsupported: string[] }> {
  // Below the usual floor only when nothing else fits (a wall of long words): inside the zone beats legible-but-cut.
  const floor = Math.round(MIN_SIZE_SHARE * textHeight);
  const colour = textColourOf(input.textEffect);
  let px = requestedPx;
  for (;;) {
    // The outline or box grows the block; wrap narrower by as much so the whole layer fits.
    const inset = effectInset(input.textEffect, px);
    // Words are split only once the caption is at the floor: a smaller whole word reads better. Lines
    // are broken a little short of the width: Pango's widths differ from the estimate by a few px.
    const width = Math.floor((zone.width - inset.x * 2) * LAYOUT_SLACK);
    const layout = await layoutCaption({
      style: input.textStyleId,
      caption: input.caption,
      language: input.language,
      px,
      width,
      breakWords: px <= floor,
    });
    // Drawing is most of a caption's cost: a size whose layout surely misses the zone is not drawn.
    // The estimate's lines are the fonts' full line boxes; the drawing is cut to the ink at the top
    // and bottom (never by as much as 0.75 em), so this height is never more than the drawn one.
    const lines = layout.lines;
    let layer = {
      width: Math.max(...lines.map((line) => line.width)) + inset.x * 2,
      height:
        lines.reduce((total, line) => total + line.height, 0) +
        (lines.length - 1) * lineSpacing(px) -
        0.75 * px +
        inset.y * 2,
    };
    if ((layer.width <= zone.width * WIDTH_MARGIN && layer.height <= zone.height) || px <= MIN_PX) {
      const mask = await drawLayout(input.textStyleId, input.caption, input.language, px, layout, colour);
      layer = { width: mask.width + inset.x * 2, height: mask.height + inset.y * 2 };
      if ((layer.height <= zone.height && layer.width <= zone.width) || px <= MIN_PX)
        return {
          layer: await buildLayer(mask, input.textEffect, px),
          px,
          lines: lines.map((line) => line.text),
          unsupported: layout.unsupported,
        };
    }
    // Height grows about with the square of the size, a too-long word's width with the size: aim
    // straight at a fitting size, then step down.
    const ratio = Math.min(Math.sqrt(zone.height / layer.height), zone.width / layer.width);
    const aim = Math.floor(px * Math.min(0.92, ratio));
    px = Math.max(px > floor ? floor : MIN_PX, aim);
  }
}

/** The layer's position: centred across the zone, vertically at the hook line or the zone's middle, kept inside. */
function place(
  layer: { width: number; height: number },
  zone: Box,
  role: RenderSlideInput['role'],
  frameHeight: number,
): Box {
  const centreY = role === 'hook' ? frameHeight * HOOK_CENTRE_SHARE : zone.top + zone.height / 2;
  const top = clamp(Math.round(centreY - layer.height / 2), zone.top, zone.top + zone.height - layer.height);
  const left = clamp(
    Math.round(zone.left + (zone.width - layer.width) / 2),
    zone.left,
    zone.left + zone.width - layer.width,
  );
  return { left, top, width: layer.width, height: layer.height };
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(value, Math.max(min, max)));
}

/** The image's header (no pixel decoded, whatever its size: the cap is checked after). */
async function readHeader(image: Buffer): Promise<Metadata> {
  try {
    return await sharp(image, { limitInputPixels: false }).metadata();
  } catch {
    throw new AppError('invalid_media_file', 'The image could not be decoded');
  }
}

/** The image's size as shown (EXIF orientations 5 to 8 turn it a quarter). */
function orientedSize(meta: Metadata): { width: number; height: number } {
  const width = meta.width ?? 1;
  const height = meta.height ?? 1;
  return (meta.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
}
