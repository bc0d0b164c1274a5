import sharp from 'sharp';
import { prepareFonts } from './fonts.js';
import { STYLE_FAMILIES, type TextStyleId } from './styles.js';

/** A caption drawn as an 8-bit coverage mask, exactly as large as its ink's line boxes. */
export interface TextMask {
  data: Buffer;
  width: number;
  height: number;
}

// Kana, Hangul and Han (with their compatibility and extension blocks).
const KANA = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/u;
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/u;
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3fffd}]/u;

/**
 * The CJK family a caption's Han characters are drawn in: Japanese text (kana) or a Japanese hint
 * picks JP, Hangul or a Korean hint KR, Traditional Chinese hints TC, other Han text SC.
 */
export function cjkFamily(caption: string, language = ''): string {
  const hint = language.toLowerCase();
  if (KANA.test(caption) || (hint.startsWith('ja') && HAN.test(caption))) return 'Noto Sans JP';
  if (HANGUL.test(caption) || hint.startsWith('ko')) return 'Noto Sans KR';
  if (/^zh-(tw|hk|mo|hant)/.test(hint)) return 'Noto Sans TC';
  return 'Noto Sans SC';
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
 * Draws the caption centred and wrapped to `width` by word. A word longer than a line sticks out (the
 * mask comes out wider than `width`) unless `breakWords`, which splits it between characters.
 */
export async function drawTextMask(
  style: TextStyleId,
  caption: string,
  language: string | undefined,
  px: number,
  width: number,
  breakWords = false,
): Promise<TextMask> {
  await prepareFonts();
  const drawn = await sharp({
    text: {
      text: escapeMarkup(caption),
      font: fontDescription(style, caption, language, px),
      width,
      align: 'centre',
      wrap: breakWords ? 'word-char' : 'word',
      dpi: 72,
      spacing: Math.round(px * 0.12),
    },
  })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch((error: unknown) => {
      // Text made only of characters no font draws (Unicode tags, say) has no ink: a blank caption.
      if (error instanceof Error && error.message.includes('no text to render')) return null;
      throw error;
    });
  if (!drawn) return { data: Buffer.alloc(1), width: 1, height: 1 };
  return { data: drawn.data, width: drawn.info.width, height: drawn.info.height };
}

// The text is Pango markup: the characters markup gives meaning to are escaped.
function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
