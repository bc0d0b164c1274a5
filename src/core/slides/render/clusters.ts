import type { Face } from './faces.js';

// A caption's grapheme clusters as the layout sees them: text, colour emoji, spaces, and what no font draws.

type ClusterKind = 'text' | 'emoji' | 'space' | 'invisible';

export interface Cluster {
  text: string;
  kind: ClusterKind;
  width: number;
  /** The height of a line of the font that draws it, in px. */
  height: number;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}]/u;
const COMBINING_OR_JOINING = /[\uFE0F\u20E3\u200D\p{Emoji_Modifier}]/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}/u;
const REGIONAL = /^\p{Regional_Indicator}/u;
const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}/u;
/** Pictographic by Unicode, but written as text in captions. */
const TEXT_SYMBOLS = new Set(['©', '®', '™', '‼', '⁉', '↔', '↕']);

/** Whether a grapheme cluster is an emoji to draw in colour. */
function isEmoji(cluster: string): boolean {
  if (cluster.includes('\uFE0E')) return false;
  if (REGIONAL.test(cluster) || EMOJI_PRESENTATION.test(cluster)) return true;
  if (!PICTOGRAPHIC.test(cluster) && !/^[#*0-9]/.test(cluster)) return false;
  if (COMBINING_OR_JOINING.test(cluster)) return true;
  return PICTOGRAPHIC.test(cluster) && !TEXT_SYMBOLS.has(cluster);
}

function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The paragraph as grapheme clusters with their widths at `px`; clusters no font draws are left out. */
export function toClusters(
  paragraph: string,
  chain: Face[],
  emoji: Face,
  px: number,
  unsupported: Set<string>,
): Cluster[] {
  const clusters: Cluster[] = [];
  for (const { segment } of graphemes.segment(paragraph)) {
    if (/^\s+$/u.test(segment)) {
      clusters.push({ text: ' ', kind: 'space', width: widthOf(' ', chain, px), height: 0 });
      continue;
    }
    const visible = [...segment].filter((char) => !IGNORABLE.test(char) && !/\p{Cc}/u.test(char));
    if (visible.length === 0) {
      // Nothing to draw (a joiner or tag alone): Pango draws nothing for it either.
      if (!/\p{Cc}/u.test(segment)) clusters.push({ text: segment, kind: 'invisible', width: 0, height: 0 });
      continue;
    }
    const base = segment.codePointAt(0) as number;
    if (isEmoji(segment) && emoji.has(base)) {
      clusters.push({ text: segment, kind: 'emoji', width: emoji.advance(base) * px, height: emoji.lineHeight() * px });
      continue;
    }
    const missing = visible.map((char) => char.codePointAt(0) as number).filter((cp) => !chain.some((f) => f.has(cp)));
    if (missing.length > 0) {
      for (const codePoint of missing) unsupported.add(codePointName(codePoint));
      continue;
    }
    const face = chain.find((f) => f.has(base));
    clusters.push({
      text: segment,
      kind: 'text',
      width: widthOf(segment, chain, px),
      height: (face?.lineHeight() ?? 0) * px,
    });
  }
  return clusters;
}

/** The text's advance at `px`, each character in the first font of the chain that has it. */
function widthOf(text: string, chain: Face[], px: number): number {
  let width = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0) as number;
    if (IGNORABLE.test(char)) continue;
    const face = chain.find((f) => f.has(codePoint));
    if (face) width += face.advance(codePoint) * px;
  }
  return width;
}
