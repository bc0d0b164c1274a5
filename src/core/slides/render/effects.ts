import sharp from 'sharp';
import type { TextMask } from './text-mask.js';
import type { TextEffect } from './styles.js';

/** The slide's pixels while the caption is painted on: 8-bit RGB, row by row. */
export interface Canvas {
  data: Buffer;
  width: number;
  height: number;
}

type Rgb = readonly [number, number, number];

/**
 * The caption ready to paint: two coverage planes (0 to 255 per pixel, width × height) laid over the
 * slide in turn, first the backing (a dark outline and shadow, or a white box), then the text. The
 * text is in `textColour`, unless it has emoji: then its colours are read from `drawn`.
 */
export interface CaptionLayer {
  width: number;
  height: number;
  backing: Buffer;
  backingColour: Rgb;
  text: Buffer;
  textColour: Rgb;
  drawn?: DrawnText;
}

/** The caption's drawing in colour (RGBA, `width` px a row), its top-left corner at (`left`, `top`) in the layer. */
export interface DrawnText {
  rgba: Buffer;
  width: number;
  left: number;
  top: number;
}

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
/** TikTok's near-black, used for text on the white box. */
const INK: Rgb = [0x16, 0x18, 0x23];

/** The text's colour in each effect (emoji keep their own). */
export function textColourOf(effect: TextEffect): Rgb {
  return effect === 'box' ? INK : WHITE;
}

/** How far an effect reaches beyond the text's mask on each side (outline and shadow, or box padding). */
export function effectInset(effect: TextEffect, px: number): { x: number; y: number } {
  if (effect === 'box') return { x: Math.round(px * 0.4), y: Math.round(px * 0.25) };
  const pad = strokeOf(px) * 3;
  return { x: pad, y: pad };
}

/** The caption's layer in the chosen effect at font size `px`: the mask grown by `effectInset` on each side. */
export function buildLayer(mask: TextMask, effect: TextEffect, px: number): Promise<CaptionLayer> {
  return effect === 'box' ? Promise.resolve(boxed(mask, px)) : outlined(mask, px);
}

/**
 * Blends the layer into the canvas with its top-left corner at (`left`, `top`), clipped to the
 * canvas. Painting straight into the slide's pixels costs one pass over the layer, where libvips'
 * composite would convert the whole slide to float and back.
 */
export function paintLayer(canvas: Canvas, layer: CaptionLayer, at: { left: number; top: number }): void {
  if (layer.drawn) {
    paintColoured(canvas, layer, layer.drawn, at);
    return;
  }
  const { data } = canvas;
  const { backing, text } = layer;
  const [b0, b1, b2] = layer.backingColour;
  const [t0, t1, t2] = layer.textColour;
  const rows = Math.min(layer.height, canvas.height - at.top);
  const columns = Math.min(layer.width, canvas.width - at.left);
  // Most pixels are empty, fully backed or fully text: those skip the arithmetic.
  for (let y = 0; y < rows; y++) {
    let o = ((at.top + y) * canvas.width + at.left) * 3;
    for (let x = 0, i = y * layer.width; x < columns; x++, i++, o += 3) {
      const over = text[i] as number;
      if (over === 255) {
        data[o] = t0;
        data[o + 1] = t1;
        data[o + 2] = t2;
        continue;
      }
      const under = backing[i] as number;
      if (under === 0 && over === 0) continue;
      let r = b0;
      let g = b1;
      let b = b2;
      if (under !== 255) {
        const keep = 255 - under;
        r = div255((data[o] as number) * keep + b0 * under);
        g = div255((data[o + 1] as number) * keep + b1 * under);
        b = div255((data[o + 2] as number) * keep + b2 * under);
      }
      if (over !== 0) {
        const keep = 255 - over;
        r = div255(r * keep + t0 * over);
        g = div255(g * keep + t1 * over);
        b = div255(b * keep + t2 * over);
      }
      data[o] = r;
      data[o + 1] = g;
      data[o + 2] = b;
    }
  }
}

/** `paintLayer` for text with emoji: the same blend, the text's colour read from its drawing. */
function paintColoured(canvas: Canvas, layer: CaptionLayer, drawn: DrawnText, at: { left: number; top: number }): void {
  const { data } = canvas;
  const { backing, text } = layer;
  const { rgba } = drawn;
  const [b0, b1, b2] = layer.backingColour;
  const rows = Math.min(layer.height, canvas.height - at.top);
  const columns = Math.min(layer.width, canvas.width - at.left);
  for (let y = 0; y < rows; y++) {
    let o = ((at.top + y) * canvas.width + at.left) * 3;
    // Text is only where the drawing is, so its pixel is found from the layer's by the drawing's offset.
    let c = ((y - drawn.top) * drawn.width - drawn.left) * 4;
    for (let x = 0, i = y * layer.width; x < columns; x++, i++, o += 3, c += 4) {
      const over = text[i] as number;
      if (over === 255) {
        data[o] = rgba[c] as number;
        data[o + 1] = rgba[c + 1] as number;
        data[o + 2] = rgba[c + 2] as number;
        continue;
      }
      const under = backing[i] as number;
      if (under === 0 && over === 0) continue;
      let r = data[o] as number;
      let g = data[o + 1] as number;
      let b = data[o + 2] as number;
      if (under !== 0) {
        const keep = 255 - under;
        r = div255(r * keep + b0 * under);
        g = div255(g * keep + b1 * under);
        b = div255(b * keep + b2 * under);
      }
      if (over !== 0) {
        const keep = 255 - over;
        r = div255(r * keep + (rgba[c] as number) * over);
        g = div255(g * keep + (rgba[c + 1] as number) * over);
        b = div255(b * keep + (rgba[c + 2] as number) * over);
      }
      data[o] = r;
      data[o + 1] = g;
      data[o + 2] = b;
    }
  }
}

/** Rounds x / 255 for x from 0 to 255 × 255 without a division. */
function div255(x: number): number {
  return (x * 257 + 32896) >> 16;
}

function strokeOf(px: number): number {
  return Math.max(2, Math.round(px * 0.06));
}

/** The mask placed `inset` from the edges of a larger, empty plane, and where its drawing lands in colour. */
function padded(
  mask: TextMask,
  inset: { x: number; y: number },
): { plane: Buffer; width: number; height: number; drawn?: DrawnText } {
  const width = mask.width + inset.x * 2;
  const height = mask.height + inset.y * 2;
  const plane = Buffer.alloc(width * height);
  for (let y = 0; y < mask.height; y++)
    mask.data.copy(plane, (y + inset.y) * width + inset.x, y * mask.width, (y + 1) * mask.width);
  const drawn = mask.rgba && { rgba: mask.rgba, width: mask.width, left: inset.x, top: inset.y };
  return { plane, width, height, drawn };
}

/** The outline's darkness for each blurred value: boosted 4.6 times (a firm edge), at most 90%. */
const OUTLINE = Uint8Array.from({ length: 256 }, (_, value) => Math.round(Math.min(255, value * 4.6) * 0.9));

/**
 * White text over a dark outline (the glyphs blurred and boosted, which grows them smoothly by about
 * `stroke` pixels) and a soft drop shadow (the outline again, lower and fainter): legible on white,
 * black and busy photos alike.
 */
async function outlined(mask: TextMask, px: number): Promise<CaptionLayer> {
  const { plane: text, width, height, drawn } = padded(mask, effectInset('outline', px));
  const blurred = await sharp(text, { raw: { width, height, channels: 1 } })
    .blur({ sigma: strokeOf(px) * 0.5, precision: 'integer', minAmplitude: 0.1 })
    .extractChannel(0) // else sharp hands back three channels
    .raw()
    .toBuffer();
  const drop = Math.round(strokeOf(px) * 0.8) * width;
  const backing = Buffer.alloc(width * height);
  for (let i = 0; i < backing.length; i++) {
    // The outline at 90%, or the shadow (the outline `drop` rows up) at 45%, whichever is darker.
    const shadow = i >= drop ? (OUTLINE[blurred[i - drop] as number] as number) >> 1 : 0;
    backing[i] = Math.max(OUTLINE[blurred[i] as number] as number, shadow);
  }
  return { width, height, backing, backingColour: BLACK, text, textColour: WHITE, drawn };
}

/** Near-black text on one white rounded box around the whole caption, as TikTok's filled text style. */
function boxed(mask: TextMask, px: number): CaptionLayer {
  const { plane: text, width, height, drawn } = padded(mask, effectInset('box', px));
  const radius = Math.round(px * 0.3);
  const backing = Buffer.alloc(width * height, 255);
  // Only the four corners are not fully covered.
  for (let y = 0; y < radius; y++)
    for (let x = 0; x < radius; x++) {
      const dx = radius - x - 0.5;
      const dy = radius - y - 0.5;
      const cover = Math.round(255 * Math.max(0, Math.min(1, radius + 0.5 - Math.hypot(dx, dy))));
      for (const [cx, cy] of [
        [x, y],
        [width - 1 - x, y],
        [x, height - 1 - y],
        [width - 1 - x, height - 1 - y],
      ] as const)
        backing[cy * width + cx] = cover;
    }
  return { width, height, backing, backingColour: WHITE, text, textColour: INK, drawn };
}
