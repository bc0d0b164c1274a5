import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { renderSlide, SAFE_ZONES, TEXT_STYLE_IDS } from '../../src/core/slides/render/index.js';

const require = createRequire(import.meta.url);

/** Measures in a fresh process, so fonts one rendering registered cannot help another. */
function measure(...args: string[]): { width: number; height: number; ink: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/slides/measure-text.ts', ...args], {
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as { width: number; height: number; ink: number };
}

/** The box around every pixel that differs from the flat grey background. */
async function inkBox(jpeg: Buffer): Promise<{ left: number; top: number; right: number; bottom: number }> {
  const { data, info } = await sharp(jpeg).greyscale().raw().toBuffer({ resolveWithObject: true });
  const box = { left: info.width, top: info.height, right: -1, bottom: -1 };
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (Math.abs((data[y * info.width + x] as number) - 128) > 24) {
        box.left = Math.min(box.left, x);
        box.right = Math.max(box.right, x);
        box.top = Math.min(box.top, y);
        box.bottom = Math.max(box.bottom, y);
      }
    }
  }
  return box;
}

/** Marks every pixel within `reach` (square distance) of a marked one. */
function dilate(marked: boolean[], width: number, height: number, reach: number): boolean[] {
  const across = marked.map((_, i) => {
    const x = i % width;
    for (let d = -reach; d <= reach; d++) if (x + d >= 0 && x + d < width && marked[i + d]) return true;
    return false;
  });
  return across.map((_, i) => {
    const y = Math.floor(i / width);
    for (let d = -reach; d <= reach; d++) if (y + d >= 0 && y + d < height && across[i + d * width]) return true;
    return false;
  });
}

const grey = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 } } })
    .jpeg()
    .toBuffer();

describe('baking captions onto slides', () => {
  it.each([
    ['9:16', 1024, 1536],
    ['4:5', 1080, 1350],
  ] as const)(
    'keeps the longest allowed caption at large inside the %s safe zone, shrunk with a warning',
    async (frame, width, height) => {
      const caption = 'Longwordsdontoverflow '.repeat(30).slice(0, 500);
      for (const textEffect of ['outline', 'box'] as const) {
        const slide = await renderSlide({
          image: await grey(width, height),
          caption,
          textStyleId: 'primary-sans',
          captionSize: 'large',
          textEffect,
          role: 'hook',
        });
        const zone = SAFE_ZONES[frame];
        expect(slide.zone).toEqual(zone);
        const ink = await inkBox(slide.jpeg);
        expect(ink.left).toBeGreaterThanOrEqual(zone.left);
        expect(ink.top).toBeGreaterThanOrEqual(zone.top);
        expect(ink.right).toBeLessThan(zone.left + zone.width);
        expect(ink.bottom).toBeLessThan(zone.top + zone.height);
        expect(slide.warnings).toEqual([expect.objectContaining({ code: 'text_shrunk' })]);
      }
    },
  );

  it('leaves a short caption at its size, without warnings', async () => {
    const slide = await renderSlide({
      image: await grey(1024, 1536),
      caption: 'Five habits',
      textStyleId: 'anton',
      captionSize: 'medium',
      textEffect: 'outline',
      role: 'body',
    });
    expect(slide.warnings).toEqual([]);
    expect(slide).toMatchObject({ width: 1080, height: 1920 });
  });

  it('outlines white text with a dark edge that hugs the glyphs and nothing dark elsewhere', async () => {
    const slide = await renderSlide({
      image: await grey(1080, 1920),
      caption: 'Five habits that changed my mornings',
      textStyleId: 'anton',
      captionSize: 'medium',
      textEffect: 'outline',
      role: 'body',
    });
    const { data, info } = await sharp(slide.jpeg).greyscale().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => data[y * info.width + x] as number;
    const { left, top, width, height } = slide.textBox;
    const white: boolean[] = [];
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) white.push(at(left + x, top + y) > 225);
    // The outline reaches about 3 strokes (6% of the size each) from the glyphs, at most the layer's inset.
    const reach = Math.ceil(0.06 * 115 * 3);
    const near = dilate(white, width, height, reach);
    // The ring 2 to 3 pixels out from the white (the pixel right next to it is the glyph's anti-aliased edge).
    const inner = dilate(white, width, height, 1);
    const outer = dilate(white, width, height, 3);
    let dark = 0;
    let darkFar = 0;
    let ring = 0;
    let ringDark = 0;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const value = at(left + x, top + y);
        if (value < 60) {
          dark++;
          if (!near[i]) darkFar++;
        }
        if (outer[i] && !inner[i]) {
          ring++;
          if (value < 128) ringDark++;
        }
      }
    expect(white.filter(Boolean).length).toBeGreaterThan(5_000);
    expect(dark).toBeGreaterThan(5_000);
    expect(darkFar).toBe(0);
    // Right around the white glyphs it is darker than the grey photo (the outline), nearly everywhere.
    expect(ringDark / ring).toBeGreaterThan(0.9);
  });

  it('keeps words whole: a word too long for a line shrinks the caption rather than splitting it', async () => {
    const zone = SAFE_ZONES['9:16'];
    const slide = await renderSlide({
      image: await grey(1080, 1920),
      caption: 'Aufgestanden Morgenroutinen',
      textStyleId: 'montserrat',
      captionSize: 'large',
      textEffect: 'outline',
      role: 'body',
    });
    expect(slide.warnings).toEqual([expect.objectContaining({ code: 'text_shrunk' })]);
    expect(slide.textBox.width).toBeLessThanOrEqual(zone.width);
    // Two words, two lines: a split word would make a third.
    const { data, info } = await sharp(slide.jpeg).greyscale().raw().toBuffer({ resolveWithObject: true });
    let lines = 0;
    let inLine = false;
    for (let y = slide.textBox.top; y < slide.textBox.top + slide.textBox.height; y++) {
      let lit = false;
      for (let x = slide.textBox.left; x < slide.textBox.left + slide.textBox.width && !lit; x++)
        lit = (data[y * info.width + x] as number) > 225;
      if (lit && !inLine) lines++;
      inLine = lit;
    }
    expect(lines).toBe(2);
  });

  it('draws each style in its own typeface: the same ink as that font file alone, and unlike the others', () => {
    const files: Record<string, [string, string]> = {
      anton: [require.resolve('@expo-google-fonts/anton/400Regular/Anton_400Regular.ttf'), 'Anton'],
      montserrat: [
        require.resolve('@expo-google-fonts/montserrat/800ExtraBold/Montserrat_800ExtraBold.ttf'),
        'Montserrat ExtraBold',
      ],
      poppins: [require.resolve('@expo-google-fonts/poppins/700Bold/Poppins_700Bold.ttf'), 'Poppins'],
      'league-spartan': [
        require.resolve('@expo-google-fonts/league-spartan/700Bold/LeagueSpartan_700Bold.ttf'),
        'League Spartan',
      ],
    };
    const widths = TEXT_STYLE_IDS.map((style) => measure('ours', style, 'en', 'Hook 5 habits').width);
    expect(new Set(widths).size).toBe(TEXT_STYLE_IDS.length);
    for (const [style, [file, family]] of Object.entries(files)) {
      expect(widths[TEXT_STYLE_IDS.indexOf(style as never)]).toBe(
        measure('reference', file, family, 'Hook 5 habits').width,
      );
    }
    // TikTok Sans is narrower than the DejaVu fallback of a WOFF file (measured 267 px against 306 px).
    expect(widths[0]).toBeLessThan(290);
  }, 60_000);

  it.each([
    ['ja', 'コーヒーの秘密を教えます', 'noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf', 'Noto Sans JP'],
    ['ko', '아무도 알려주지 않는 비밀', 'noto-sans-kr/700Bold/NotoSansKR_700Bold.ttf', 'Noto Sans KR'],
    ['zh', '关于咖啡没人告诉你的事', 'noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf', 'Noto Sans SC'],
    ['zh-TW', '關於咖啡沒人告訴你的事', 'noto-sans-tc/700Bold/NotoSansTC_700Bold.ttf', 'Noto Sans TC'],
  ])(
    'draws %s captions with its Noto font, not missing-glyph boxes',
    (language, text, file, family) => {
      const ours = measure('ours', 'primary-sans', language, text);
      const reference = measure('reference', require.resolve(`@expo-google-fonts/${file}`), family, text);
      expect(Math.abs(ours.width - reference.width)).toBeLessThanOrEqual(2);
      // Boxes or another CJK font would put down other ink: the glyphs must be that font's own.
      expect(Math.abs(ours.ink - reference.ink) / reference.ink).toBeLessThan(0.02);
    },
    60_000,
  );

  it('draws Vietnamese diacritics', () => {
    const marked = measure('ours', 'primary-sans', 'vi', 'Những điều không ai nói');
    const bare = measure('ours', 'primary-sans', 'vi', 'Nhung dieu khong ai noi');
    expect(marked.height).toBeGreaterThan(bare.height);
  }, 30_000);
});
