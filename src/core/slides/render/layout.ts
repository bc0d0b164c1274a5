import {
  loadDefaultJapaneseParser,
  loadDefaultSimplifiedChineseParser,
  loadDefaultTraditionalChineseParser,
} from 'budoux';
import { toClusters, type Cluster } from './clusters.js';
import { bundledFaces, type Face, type Faces } from './faces.js';
import { STYLE_FAMILIES, type TextStyleId } from './styles.js';

/** A run of one line: text drawn by the text fonts, or one emoji drawn by the colour emoji font. */
export interface LineRun {
  text: string;
  emoji: boolean;
}

/** One line as the renderer draws it: its text, its runs, and its estimated width and height in px. */
export interface CaptionLine {
  text: string;
  runs: LineRun[];
  width: number;
  height: number;
}

/** The caption broken into lines, and the characters left out because no bundled font draws them. */
export interface CaptionLayout {
  lines: CaptionLine[];
  /** Each left-out character once, as `U+XXXX`, in order of appearance. */
  unsupported: string[];
}

export interface LayoutRequest {
  style: TextStyleId;
  caption: string;
  language: string | undefined;
  px: number;
  /** The widest a line may be, in px. */
  width: number;
  /** Whether a line may break between any two characters (else between words and phrases only). */
  breakWords: boolean;
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
  if (isTraditional(hint)) return 'Noto Sans TC';
  return 'Noto Sans SC';
}

function isTraditional(hint: string): boolean {
  return /^zh-(tw|hk|mo|hant)/.test(hint);
}

/**
 * The caption's lines at `px` within `width`. Lines break at spaces (and after a hyphen inside a
 * word); Japanese and Chinese runs break between BudouX's phrases, never inside one; Korean keeps its
 * spaces. Among the layouts with the fewest lines it picks the one with no line of a single character
 * (unless the caption is one) and the fullest lines before the last. A character no bundled font
 * draws is left out and named in `unsupported`; an emoji is its own run, drawn by the emoji font.
 */
export async function layoutCaption(request: LayoutRequest): Promise<CaptionLayout> {
  const faces = await bundledFaces();
  const chain = textChain(faces, request.style, cjkFamily(request.caption, request.language));
  const unsupported = new Set<string>();
  const lines: CaptionLine[] = [];
  for (const paragraph of request.caption.split(/\r\n|\r|\n/)) {
    const clusters = toClusters(paragraph, chain, faces.emoji, request.px, unsupported);
    const pieces = toPieces(clusters, request);
    lines.push(...breakLines(pieces, request.width));
  }
  // Blank paragraphs at either end would only add empty lines.
  while (lines.length > 1 && lines[0]?.text === '') lines.shift();
  while (lines.length > 1 && lines.at(-1)?.text === '') lines.pop();
  return { lines, unsupported: [...unsupported] };
}

/** The text fonts in the order Pango is asked for them: the style's, the caption's CJK font, Be Vietnam Pro, the rest. */
function textChain(faces: Faces, style: TextStyleId, cjk: string): Face[] {
  const first = [STYLE_FAMILIES[style], cjk, 'Be Vietnam Pro'];
  const rank = (face: Face) => {
    const at = first.indexOf(face.family);
    return at === -1 ? first.length : at;
  };
  return [...faces.text].sort((a, b) => rank(a) - rank(b));
}

/** A stretch no line may break inside, and the space after it. */
interface Piece {
  clusters: Cluster[];
  width: number;
  spaceWidth: number;
  /** Characters that put ink down (spaces and invisible ones not counted). */
  visible: number;
}

const HYPHENS = new Set(['-', '\u2010', '\u2013']);

/** The clusters grouped into pieces: words, phrases inside Japanese and Chinese runs, or single clusters. */
function toPieces(clusters: Cluster[], request: LayoutRequest): Piece[] {
  const words: { clusters: Cluster[]; spaces: Cluster[] }[] = [];
  for (const cluster of clusters) {
    const last = words.at(-1);
    if (cluster.kind === 'space') {
      if (last) last.spaces.push(cluster);
      continue;
    }
    if (!last || last.spaces.length > 0) words.push({ clusters: [cluster], spaces: [] });
    else last.clusters.push(cluster);
  }
  const pieces: Piece[] = [];
  for (const word of words) {
    const parts = splitWord(word.clusters, request);
    parts.forEach((part, n) => {
      const spaces = n === parts.length - 1 ? word.spaces : [];
      pieces.push({
        clusters: part,
        width: sum(part.map((c) => c.width)),
        spaceWidth: spaces[0]?.width ?? 0, // several spaces are drawn as one
        visible: part.filter((c) => c.kind === 'text' || c.kind === 'emoji').length,
      });
    });
  }
  return pieces;
}

/** A word's clusters split where a line may break inside it. */
function splitWord(clusters: Cluster[], request: LayoutRequest): Cluster[][] {
  if (request.breakWords) return clusters.map((cluster) => [cluster]);
  const text = clusters.map((c) => c.text).join('');
  const breaks = new Set<number>(); // offsets (UTF-16) a break may come before
  if (KANA.test(text) || HAN.test(text)) {
    let offset = 0;
    for (const phrase of phraseParser(text, request.language).parse(text)) {
      offset += phrase.length;
      breaks.add(offset);
    }
  }
  let offset = 0;
  for (const [n, cluster] of clusters.entries()) {
    offset += cluster.text.length;
    const next = clusters[n + 1];
    if (HYPHENS.has(cluster.text) && n > 0 && next && /^\p{L}/u.test(next.text)) breaks.add(offset);
  }
  const parts: Cluster[][] = [[]];
  offset = 0;
  for (const cluster of clusters) {
    // An emoji stays with the text it touches.
    if (breaks.has(offset) && (parts.at(-1) as Cluster[]).length > 0 && cluster.kind !== 'emoji') parts.push([]);
    (parts.at(-1) as Cluster[]).push(cluster);
    offset += cluster.text.length;
  }
  return parts;
}

type PhraseParser = ReturnType<typeof loadDefaultJapaneseParser>;
const parsers = new Map<string, PhraseParser>();

/** BudouX's model for the run: Japanese for kana or a ja hint, else Traditional or Simplified Chinese by the hint. */
function phraseParser(text: string, language = ''): PhraseParser {
  const hint = language.toLowerCase();
  const model = KANA.test(text) || hint.startsWith('ja') ? 'ja' : isTraditional(hint) ? 'zh-Hant' : 'zh-Hans';
  let parser = parsers.get(model);
  if (!parser) {
    parser =
      model === 'ja'
        ? loadDefaultJapaneseParser()
        : model === 'zh-Hant'
          ? loadDefaultTraditionalChineseParser()
          : loadDefaultSimplifiedChineseParser();
    parsers.set(model, parser);
  }
  return parser;
}

/** A layout's cost, compared in order: lines of a single character, lines, then the room left on lines before the last. */
type Cost = [number, number, number];

function add(a: Cost, b: Cost): Cost {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}

function less(a: Cost, b: Cost): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number);
  return false;
}

/**
 * The paragraph's pieces broken into lines by dynamic programming over every break. A piece wider
 * than `width` gets a line of its own (the caller shrinks the caption until it fits).
 */
function breakLines(pieces: Piece[], width: number): CaptionLine[] {
  if (pieces.length === 0) return [{ text: '', runs: [], width: 0, height: 0 }];
  const total = sum(pieces.map((p) => p.visible));
  const best: { cost: Cost; from: number }[] = [{ cost: [0, 0, 0], from: -1 }];
  for (let end = 1; end <= pieces.length; end++) {
    let choice: { cost: Cost; from: number } | undefined;
    let lineWidth = 0;
    let visible = 0;
    for (let start = end - 1; start >= 0; start--) {
      const piece = pieces[start] as Piece;
      lineWidth += piece.width + (start < end - 1 ? piece.spaceWidth : 0);
      visible += piece.visible;
      if (lineWidth > width && start < end - 1) break;
      const room = end === pieces.length ? 0 : Math.max(0, width - lineWidth);
      const cost = add((best[start] as { cost: Cost }).cost, [visible === 1 && total > 1 ? 1 : 0, 1, room * room]);
      if (!choice || less(cost, choice.cost)) choice = { cost, from: start };
    }
    best.push(choice as { cost: Cost; from: number });
  }
  const lines: CaptionLine[] = [];
  for (let end = pieces.length; end > 0; end = (best[end] as { from: number }).from)
    lines.unshift(toLine(pieces.slice((best[end] as { from: number }).from, end)));
  return lines;
}

function toLine(pieces: Piece[]): CaptionLine {
  const clusters = pieces.flatMap((piece, n) => [
    ...piece.clusters,
    ...(n < pieces.length - 1 && piece.spaceWidth > 0
      ? [{ text: ' ', kind: 'space' as const, width: piece.spaceWidth, height: 0 }]
      : []),
  ]);
  const runs: LineRun[] = [];
  for (const cluster of clusters) {
    const emoji = cluster.kind === 'emoji';
    const last = runs.at(-1);
    if (last && !emoji && !last.emoji) last.text += cluster.text;
    else runs.push({ text: cluster.text, emoji });
  }
  return {
    text: runs.map((run) => run.text).join(''),
    runs,
    width: sum(pieces.map((p) => p.width)) + sum(pieces.slice(0, -1).map((p) => p.spaceWidth)),
    height: Math.max(0, ...clusters.map((c) => c.height)),
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
