import {
  loadDefaultJapaneseParser,
  loadDefaultSimplifiedChineseParser,
  loadDefaultTraditionalChineseParser,
} from 'budoux';
import { openSync, type Font } from 'fontkit';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  CAPTION_SIZES,
  prepareFonts,
  renderSlide,
  TEXT_EFFECTS,
  TEXT_STYLE_IDS,
  type RenderedSlide,
} from '../../src/core/slides/render/index.js';
import { layoutCaption } from '../../src/core/slides/render/layout.js';

const grey = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 } } })
    .jpeg()
    .toBuffer();

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const visibleCount = (line: string) => [...graphemes.segment(line.replace(/\s/g, ''))].length;

/** Where each line after the first starts in `text` (lines of text written without spaces). */
function breakOffsets(lines: string[]): number[] {
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines.slice(0, -1)) {
    at += line.length;
    offsets.push(at);
  }
  return offsets;
}

/** The offsets between BudouX's phrases. */
function phraseBoundaries(phrases: string[]): Set<number> {
  return new Set(breakOffsets(phrases));
}

async function slide(caption: string, language: string, captionSize: (typeof CAPTION_SIZES)[number]) {
  return renderSlide({
    image: await grey(1080, 1920),
    caption,
    language,
    textStyleId: 'primary-sans',
    captionSize,
    textEffect: 'outline',
    role: 'hook',
  });
}

describe('caption lines', () => {
  const japanese = 'ヒント1：東京で朝ごはんを食べるおすすめの場所';

  it.each(CAPTION_SIZES)(
    'breaks the Japanese example between phrases at %s size: 食べる and 場所 whole, no one-character line',
    async (size) => {
      const { lines } = await slide(japanese, 'ja', size);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.join('')).toBe(japanese);
      for (const word of ['食べる', '場所', '東京', 'ヒント'])
        expect(lines.some((line) => line.includes(word))).toBe(true);
      for (const line of lines) expect(visibleCount(line)).toBeGreaterThan(1);
      const phrases = phraseBoundaries(loadDefaultJapaneseParser().parse(japanese));
      for (const offset of breakOffsets(lines)) expect(phrases.has(offset), `break at ${offset}`).toBe(true);
    },
  );

  it.each([
    ['zh', '我尝试了三十天每天早上五点起床，结果完全改变了我的生活', loadDefaultSimplifiedChineseParser],
    ['zh-TW', '我嘗試了三十天每天早上五點起床，結果完全改變了我的生活', loadDefaultTraditionalChineseParser],
  ] as const)(
    'breaks %s captions between BudouX phrases, never one character alone',
    async (language, text, parser) => {
      const phrases = phraseBoundaries(parser().parse(text));
      for (const size of CAPTION_SIZES) {
        const { lines } = await slide(text, language, size);
        expect(lines.length).toBeGreaterThan(1);
        expect(lines.join('')).toBe(text);
        for (const line of lines) expect(visibleCount(line)).toBeGreaterThan(1);
        for (const offset of breakOffsets(lines)) expect(phrases.has(offset), `${size}: break at ${offset}`).toBe(true);
      }
    },
  );

  it('keeps Korean breaking between words', async () => {
    const text = '30일 동안 새벽 5시에 일어나 봤더니 인생이 완전히 바뀌었다';
    for (const size of CAPTION_SIZES) {
      const { lines } = await slide(text, 'ko', size);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.join(' ')).toBe(text);
    }
  });

  it('never leaves a single character alone on a line, in any language', async () => {
    const request = { style: 'primary-sans', language: 'en', px: 100, breakWords: false } as const;
    const [first] = (await layoutCaption({ ...request, caption: 'ab cd', width: 100_000 })).lines;
    // Room for "ab cd" and no more: a greedy break would leave "e" alone.
    const layout = await layoutCaption({ ...request, caption: 'ab cd e', width: (first?.width ?? 0) + 1 });
    expect(layout.lines.map((line) => line.text)).toEqual(['ab', 'cd e']);
  });
});

describe('characters on slides', () => {
  /** Every bundled font file, opened here with fontkit (not through the renderer). */
  async function bundledFonts(): Promise<{ text: Font[]; emoji: Font }> {
    const { text, emoji } = await prepareFonts();
    return { text: text.map(({ file }) => openSync(file) as Font), emoji: openSync(emoji.file) as Font };
  }

  it('draws every character of a caption in each first-class language and with emoji from a bundled font', async () => {
    const fonts = await bundledFonts();
    const captions: [string, string][] = [
      ['en', 'Sleep better tonight 😴✨ 🌙'],
      ['vi', 'Những điều không ai nói với bạn về cà phê ☕️'],
      ['ja', 'ヒント1：東京で朝ごはんを食べるおすすめの場所🍙'],
      ['ko', '아무도 알려주지 않는 비밀 👀'],
      ['zh', '关于咖啡没人告诉你的事 🔥'],
      ['zh-TW', '關於咖啡沒人告訴你的事 💯'],
      ['es', '¿Sabías esto? Añade 3 hábitos 💪🏽'],
      ['fr', "L'été où j'ai tout changé 🇫🇷"],
      ['de', 'Größer träumen: 5 Gewohnheiten 👨‍👩‍👧'],
      ['pt', 'Ação e coração: 5 hábitos 1️⃣'],
      ['id', 'Aku mencoba bangun jam 5 pagi ❤️'],
    ];
    for (const [language, caption] of captions) {
      const rendered = await slide(caption, language, 'medium');
      // (A phrase wider than a line shrinks the caption, as a long word does: text_shrunk may come.)
      expect(
        rendered.warnings.filter((w) => w.code === 'unsupported_character'),
        caption,
      ).toEqual([]);
      const layout = await layoutCaption({
        style: 'primary-sans',
        caption,
        language,
        px: 115,
        width: 800,
        breakWords: false,
      });
      for (const run of layout.lines.flatMap((line) => line.runs)) {
        const base = run.text.codePointAt(0) as number;
        if (run.emoji) {
          expect(fonts.emoji.hasGlyphForCodePoint(base), run.text).toBe(true);
          continue;
        }
        for (const char of run.text.replace(/\s/g, ''))
          expect(
            fonts.text.some((font) => font.hasGlyphForCodePoint(char.codePointAt(0) as number)),
            `${char} in ${caption}`,
          ).toBe(true);
      }
      // Every emoji of the caption is drawn by the emoji font.
      const emoji = caption.match(/\p{Extended_Pictographic}|\p{Regional_Indicator}{2}/gu) ?? [];
      const drawnAsEmoji = layout.lines.flatMap((line) => line.runs.filter((run) => run.emoji).map((run) => run.text));
      expect(drawnAsEmoji.length, caption).toBeGreaterThanOrEqual(emoji.length > 0 ? 1 : 0);
      for (const each of emoji) expect(drawnAsEmoji.join('')).toContain(each);
    }
  }, 120_000);

  it('leaves out a character no bundled font draws, draws no box for it and names it in a warning', async () => {
    const image = await grey(1080, 1920);
    const input = { textStyleId: 'anton', captionSize: 'medium', textEffect: 'box', role: 'body', image } as const;
    const withIt = await renderSlide({ ...input, caption: 'Five \uE000habits' });
    const without = await renderSlide({ ...input, caption: 'Five habits' });
    expect(withIt.warnings).toEqual([
      {
        code: 'unsupported_character',
        message: 'No bundled font can draw U+E000, so it was left out of the caption',
        characters: ['U+E000'],
      },
    ]);
    expect(withIt.lines).toEqual(['Five habits']);
    expect(withIt.jpeg.equals(without.jpeg)).toBe(true);
  });
});

/** The pixels of the slide's text box whose channels differ widely (colour, not grey, white or black). */
async function colourful(
  rendered: RenderedSlide,
): Promise<{ count: number; left: number; right: number; top: number; bottom: number }> {
  const { data, info } = await sharp(rendered.jpeg).raw().toBuffer({ resolveWithObject: true });
  const box = { count: 0, left: Infinity, right: -1, top: Infinity, bottom: -1 };
  const { left, top, width, height } = rendered.textBox;
  for (let y = top; y < top + height; y++)
    for (let x = left; x < left + width; x++) {
      const o = (y * info.width + x) * info.channels;
      const [r, g, b] = [data[o] as number, data[o + 1] as number, data[o + 2] as number];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 80) {
        box.count++;
        box.left = Math.min(box.left, x);
        box.right = Math.max(box.right, x);
        box.top = Math.min(box.top, y);
        box.bottom = Math.max(box.bottom, y);
      }
    }
  return box;
}

describe('emoji on slides', () => {
  it('draws emoji in colour in every style and effect, without warnings', async () => {
    const image = await grey(1080, 1920);
    for (const textStyleId of TEXT_STYLE_IDS)
      for (const textEffect of TEXT_EFFECTS) {
        const rendered = await renderSlide({
          image,
          caption: 'Sleep better tonight 😴✨ 🌙',
          textStyleId,
          captionSize: 'medium',
          textEffect,
          role: 'body',
        });
        expect(rendered.warnings).toEqual([]);
        expect((await colourful(rendered)).count, `${textStyleId} ${textEffect}`).toBeGreaterThan(2_000);
      }
  }, 120_000);

  it.each(TEXT_EFFECTS)('draws an emoji at the caption size with the %s effect around it', async (textEffect) => {
    const rendered = await renderSlide({
      image: await grey(1080, 1920),
      caption: 'Stop doing this 🔴',
      textStyleId: 'primary-sans',
      captionSize: 'medium',
      textEffect,
      role: 'body',
    });
    const px = 115; // medium on 9:16
    const dot = await colourful(rendered);
    expect(dot.bottom - dot.top).toBeGreaterThan(px * 0.6);
    expect(dot.bottom - dot.top).toBeLessThan(px * 1.3);
    // Just right of the emoji (it ends the line): the outline's dark edge, or the white box.
    const { data, info } = await sharp(rendered.jpeg).greyscale().raw().toBuffer({ resolveWithObject: true });
    const middle = Math.round((dot.top + dot.bottom) / 2);
    const beside: number[] = [];
    for (let y = middle - 5; y <= middle + 5; y++) beside.push(data[y * info.width + dot.right + 4] as number);
    const mean = beside.reduce((a, b) => a + b, 0) / beside.length;
    if (textEffect === 'outline') expect(mean).toBeLessThan(90);
    else expect(mean).toBeGreaterThan(230);
  });
});
