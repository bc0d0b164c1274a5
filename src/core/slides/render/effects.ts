import sharp from 'sharp';
import type { TextMask } from './text-mask.js';
import type { TextEffect } from './styles.js';

/** The caption's layer, ready to composite, and where the text sits in it. */
export interface Overlay {
  /** RGBA, premultiplied by nothing: straight alpha. */
  data: Buffer;
  width: number;
  height: number;
  /** How far the text's mask sits from the layers' edges (outline, shadow or box padding). */
  inset: { x: number; y: number };
}

/** TikTok's near-black, used for text on the white box. */
const INK = { r: 0x16, g: 0x18, b: 0x23 };

/** The caption's layers in the chosen effect, at font size `px`. */
export function buildOverlay(mask: TextMask, effect: TextEffect, px: number): Promise<Overlay> {
  return effect === 'box' ? boxed(mask, px) : outlined(mask, px);
}

/**
 * White text over a dark outline (the glyphs blurred and boosted, which grows them smoothly by about
 * `stroke` pixels) and a soft shadow below it: legible on white, black and busy photos alike.
 */
async function outlined(mask: TextMask, px: number): Promise<Overlay> {
  const stroke = Math.max(2, Math.round(px * 0.06));
  const pad = stroke * 3;
  const width = mask.width + pad * 2;
  const height = mask.height + pad * 2;
  const padded = Buffer.alloc(width * height);
  for (let y = 0; y < mask.height; y++)
    mask.data.copy(padded, (y + pad) * width + pad, y * mask.width, (y + 1) * mask.width);
  const outline = await grey(padded, width, height)
    .blur(stroke * 0.5)
    .linear(4.6, 0)
    .extractChannel(0)
    .raw()
    .toBuffer();
  const shadow = await grey(outline, width, height).blur(stroke).extractChannel(0).raw().toBuffer();
  const drop = Math.round(stroke * 0.6) * width;
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const text = (padded[i] as number) / 255;
    const below = i >= drop ? (shadow[i - drop] as number) : 0;
    const dark = Math.max(((outline[i] as number) / 255) * 0.9, (below / 255) * 0.5);
    const alpha = text + dark * (1 - text);
    const white = alpha > 0 ? Math.round((255 * text) / alpha) : 0;
    const o = i * 4;
    data[o] = white;
    data[o + 1] = white;
    data[o + 2] = white;
    data[o + 3] = Math.round(alpha * 255);
  }
  return { data, width, height, inset: { x: pad, y: pad } };
}

/** Near-black text on one white rounded box around the whole caption, as TikTok's filled text style. */
async function boxed(mask: TextMask, px: number): Promise<Overlay> {
  const padX = Math.round(px * 0.4);
  const padY = Math.round(px * 0.25);
  const width = mask.width + padX * 2;
  const height = mask.height + padY * 2;
  const radius = Math.round(px * 0.3);
  const box = await sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" rx="${radius}" ry="${radius}" fill="#fff"/></svg>`,
    ),
  )
    .extractChannel(3)
    .raw()
    .toBuffer();
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inside = x >= padX && x < padX + mask.width && y >= padY && y < padY + mask.height;
      const text = inside ? (mask.data[(y - padY) * mask.width + (x - padX)] as number) / 255 : 0;
      const o = i * 4;
      data[o] = Math.round(255 + (INK.r - 255) * text);
      data[o + 1] = Math.round(255 + (INK.g - 255) * text);
      data[o + 2] = Math.round(255 + (INK.b - 255) * text);
      data[o + 3] = box[i] as number;
    }
  }
  return { data, width, height, inset: { x: padX, y: padY } };
}

function grey(data: Buffer, width: number, height: number) {
  return sharp(data, { raw: { width, height, channels: 1 } });
}
