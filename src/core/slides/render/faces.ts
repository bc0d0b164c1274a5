import { openSync, type Font } from 'fontkit';
import { prepareFonts, type FontFile } from './fonts.js';

/**
 * The bundled font files read with fontkit: which characters each can draw (its cmap) and how wide
 * it draws them, so a caption can be checked and laid out before Pango draws it. Files are opened on
 * first use (the CJK and emoji files are large, and most captions need neither).
 */
export interface Face {
  file: string;
  family: string;
  has(codePoint: number): boolean;
  /** The glyph's advance at 1 px per em. */
  advance(codePoint: number): number;
  /** The height of a line in this font at 1 px per em (ascent plus descent). */
  lineHeight(): number;
}

export interface Faces {
  text: Face[];
  emoji: Face;
}

let loaded: Promise<Faces> | undefined;

export function bundledFaces(): Promise<Faces> {
  loaded ??= prepareFonts().then(({ text, emoji }) => ({ text: text.map(lazyFace), emoji: lazyFace(emoji) }));
  return loaded;
}

function lazyFace({ file, family }: FontFile): Face {
  let font: Font | undefined;
  const open = (): Font => {
    font ??= openSync(file) as Font;
    return font;
  };
  // Captions repeat characters, and a caption is laid out at several sizes: both answers are kept.
  const covered = new Map<number, boolean>();
  const advances = new Map<number, number>();
  return {
    file,
    family,
    has(codePoint) {
      let has = covered.get(codePoint);
      if (has === undefined) {
        has = open().hasGlyphForCodePoint(codePoint);
        covered.set(codePoint, has);
      }
      return has;
    },
    lineHeight() {
      const opened = open();
      return (opened.ascent - opened.descent) / opened.unitsPerEm;
    },
    advance(codePoint) {
      let width = advances.get(codePoint);
      if (width === undefined) {
        const opened = open();
        width = opened.glyphForCodePoint(codePoint).advanceWidth / opened.unitsPerEm;
        advances.set(codePoint, width);
      }
      return width;
    },
  };
}
