import sharp from 'sharp';
import { EMOJI_FAMILY } from './fonts.js';
import { cjkFamily, layoutCaption, type CaptionLayout } from './layout.js';
import { STYLE_FAMILIES, type TextStyleId } from './styles.js';

/**
 * A caption drawn as an 8-bit coverage mask, exactly as large as its ink's line boxes, with the
 * layout it was drawn from. A caption with emoji also carries the drawing itself (RGBA, row by row,
 * alpha not premultiplied; `data` is its alpha): the text in its colour, the emoji in theirs.
 */
export interface TextMask {
  data: Buffer;
  width: number;
  height: number;
  rgba?: Buffer;
  layout: CaptionLayout;
}

/**
 * Pango's font description: the style's family first, then the caption's CJK family and Be Vietnam
 * Pro, so each character comes from the first of them that has it (TikTok Sans and the display fonts
 * have no CJK; Be Vietnam Pro covers Vietnamese where a style lacks a mark).
 */
export function fontDescription(style: TextStyleId, caption: string, language: string | undefined, px: number): string {
  return `${STYLE_FAMILIES[style]},${cjkFamily(caption, language)},Be Vietnam Pro, Bold ${px}`;
}

/**
 * Lays the caption out for `width` and draws it (a phrase longer than a line sticks out, and the mask
 * comes out wider than `width`, unless `breakWords`, which lets lines break between any characters).
 */
export async function drawTextMask(
  style: TextStyleId,
  caption: string,
  language: string | undefined,
  px: number,
  width: number,
  breakWords = false,
  colour: readonly [number, number, number] = [255, 255, 255],
): Promise<TextMask> {
  const layout = await layoutCaption({ style, caption, language, px, width, breakWords });
  return drawLayout(style, caption, language, px, layout, colour);
}

/**
 * Draws the caption centred in the lines of `layout`: emoji in colour by the emoji font, the text in
 * `colour`.
 */
export async function drawLayout(
  style: TextStyleId,
  caption: string,
  language: string | undefined,
  px: number,
  layout: CaptionLayout,
  colour: readonly [number, number, number],
): Promise<TextMask> {
  const withEmoji = layout.lines.some((line) => line.runs.some((run) => run.emoji));
  const markup = layout.lines
    .map((line) =>
      line.runs
        .map((run) =>
          run.emoji ? `<span face="${EMOJI_FAMILY}">${escapeMarkup(run.text)}</span>` : escapeMarkup(run.text),
        )
        .join(''),
    )
    .join('\n');
  if (markup.trim() === '') return { data: Buffer.alloc(1), width: 1, height: 1, layout };
  const hex = colour.map((c) => c.toString(16).padStart(2, '0')).join('');
  const text = sharp({
    text: {
      text: withEmoji ? `<span foreground="#${hex}">${markup}</span>` : markup,
      font: fontDescription(style, caption, language, px),
      align: 'centre',
      rgba: withEmoji,
      dpi: 72,
      spacing: lineSpacing(px),
    },
  });
  // Without rgba sharp hands back the coverage in three channels: one is kept.
  const drawn = await (withEmoji ? text : text.extractChannel(0))
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch((error: unknown) => {
      // Text made only of characters that draw nothing (Unicode tags, say) has no ink: a blank caption.
      if (error instanceof Error && error.message.includes('no text to render')) return null;
      throw error;
    });
  if (!drawn) return { data: Buffer.alloc(1), width: 1, height: 1, layout };
  const { data, info } = drawn;
  if (!withEmoji) return { data, width: info.width, height: info.height, layout };
  // The coverage is the alpha; the colours are read from the drawing where they are painted.
  const pixels = info.width * info.height;
  const mask = Buffer.alloc(pixels);
  for (let i = 0, o = 3; i < pixels; i++, o += 4) mask[i] = data[o] as number;
  return { data: mask, width: info.width, height: info.height, rgba: data, layout };
}

/** The space between lines at size `px`. */
export function lineSpacing(px: number): number {
  return Math.round(px * 0.12);
}

// The text is Pango markup: the characters markup gives meaning to are escaped.
function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
