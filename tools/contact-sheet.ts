/**
 * Draws a contact sheet of the caption renderer (npx tsx tools/contact-sheet.ts [out.png]; default
 * test-artifacts/contact-sheet.png): every text style × size × effect on a light, a dark and a busy
 * photo, then a sample hook in each first-class language (and Traditional Chinese), then the longest
 * caption the API accepts (500 characters), which must come out shrunk inside the safe zone, then a
 * row of emoji captions in every style and effect, and rows of longer Japanese, Chinese and Korean
 * captions at every size and effect (lines break between phrases, never one character alone). Each
 * tile is labelled; the safe zone is outlined in the language tiles so placement can be judged.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { busyPhoto, darkPhoto, lightPhoto } from '../bench/support/photos.js';
import {
  CAPTION_SIZES,
  TEXT_EFFECTS,
  TEXT_STYLE_IDS,
  prepareFonts,
  renderSlide,
  type RenderSlideInput,
} from '../src/core/slides/render/index.js';

const OUT = process.argv[2] ?? 'test-artifacts/contact-sheet.png';
const SCALE = 5; // 1080x1920 slides become 216x384 tiles
const TILE = { width: 1080 / SCALE, height: 1920 / SCALE };
const LABEL = 44;
const GAP = 12;

const HOOKS: [string, string][] = [
  ['en', 'I tried waking up at 5am for 30 days'],
  ['vi', 'Tôi đã thử dậy lúc 5 giờ sáng trong 30 ngày'],
  ['ja', '30日間、朝5時に起きてみた結果'],
  ['ko', '30일 동안 새벽 5시에 일어나 봤다'],
  ['zh', '我尝试了30天早上5点起床'],
  ['zh-TW', '我嘗試了30天早上5點起床'],
  ['es', 'Probé levantarme a las 5 durante 30 días'],
  ['fr', "J'ai essayé de me lever à 5h pendant 30 jours"],
  ['de', 'Ich bin 30 Tage lang um 5 Uhr aufgestanden'],
  ['pt', 'Tentei acordar às 5h durante 30 dias'],
  ['id', 'Aku mencoba bangun jam 5 pagi selama 30 hari'],
];
const EMOJI_CAPTION = 'Sleep better tonight 😴✨ 🌙 3 habits 💪🏽 that work 🇯🇵 👨‍👩‍👧 1️⃣';
const CJK_ROWS: [string, string][] = [
  ['ja', 'ヒント1：東京で朝ごはんを食べるおすすめの場所'],
  ['zh', '我尝试了三十天每天早上五点起床，结果完全改变了我的生活'],
  ['ko', '30일 동안 새벽 5시에 일어나 봤더니 인생이 완전히 바뀌었다'],
];
const LONGEST = 'Every morning I wrote down three things I was grateful for, and slowly it changed how I saw my day. '
  .repeat(5)
  .slice(0, 500);

async function label(text: string, width: number): Promise<Buffer> {
  return sharp({
    text: {
      text: `<span foreground="#222">${text}</span>`,
      font: 'TikTok Sans Light, Bold 15',
      rgba: true,
      width,
      wrap: 'word',
      dpi: 72,
    },
  })
    .png()
    .toBuffer();
}

async function tile(photo: Buffer, input: Omit<RenderSlideInput, 'image'>, zone = false): Promise<Buffer> {
  const slide = await renderSlide({ ...input, image: photo });
  const overlays: OverlayOptions[] = [];
  if (zone) {
    const box = slide.zone;
    overlays.push({
      input: Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${slide.width}" height="${slide.height}"><rect x="${box.left}" y="${box.top}" width="${box.width}" height="${box.height}" fill="none" stroke="#00f2ea" stroke-width="6" stroke-dasharray="24 16"/></svg>`,
      ),
    });
  }
  // sharp resizes before it composites, so the zone is drawn at full size first.
  const marked = await sharp(slide.jpeg).composite(overlays).png().toBuffer();
  return sharp(marked).resize(TILE.width, TILE.height).png().toBuffer();
}

async function main(): Promise<void> {
  await prepareFonts();
  const photos = [
    ['light', await lightPhoto(1080, 1920)],
    ['dark', await darkPhoto(1080, 1920)],
    ['busy', await busyPhoto(1080, 1920, 3)],
  ] as const;
  const overlays: OverlayOptions[] = [];
  const columnX = (column: number) => GAP + column * (TILE.width + GAP);
  let y = GAP;

  // Styles × effects as rows; sizes × photos as columns.
  for (const style of TEXT_STYLE_IDS)
    for (const effect of TEXT_EFFECTS) {
      let column = 0;
      for (const size of CAPTION_SIZES)
        for (const [photoName, photo] of photos) {
          const x = columnX(column++);
          overlays.push({
            input: await label(`${style} · ${effect}\n${size} · ${photoName}`, TILE.width),
            left: x,
            top: y,
          });
          const caption = `${style}: five habits that changed my mornings`;
          const input = { caption, textStyleId: style, captionSize: size, textEffect: effect, role: 'body' } as const;
          overlays.push({ input: await tile(photo, input), left: x, top: y + LABEL });
        }
      y += LABEL + TILE.height + GAP;
    }

  // One row of hooks in each language, then the 500-character caption on each photo.
  const busy = photos[2][1];
  const hooks: { name: string; input: Omit<RenderSlideInput, 'image'>; photo: Buffer }[] = HOOKS.map(
    ([language, caption]) => ({
      name: `hook · ${language}`,
      photo: busy,
      input: {
        caption,
        language,
        textStyleId: 'primary-sans',
        captionSize: 'large',
        textEffect: 'outline',
        role: 'hook',
      },
    }),
  );
  for (const [photoName, photo] of photos)
    hooks.push({
      name: `500 chars · ${photoName}`,
      photo,
      input: {
        caption: LONGEST,
        textStyleId: 'primary-sans',
        captionSize: 'large',
        textEffect: 'outline',
        role: 'body',
      },
    });
  const perRow = 9;
  for (const [n, hook] of hooks.entries()) {
    if (n > 0 && n % perRow === 0) y += LABEL + TILE.height + GAP;
    const x = columnX(n % perRow);
    overlays.push({ input: await label(`${hook.name}\nsafe zone dashed`, TILE.width), left: x, top: y });
    overlays.push({ input: await tile(hook.photo, hook.input, true), left: x, top: y + LABEL });
  }
  y += LABEL + TILE.height + GAP;

  // Emoji in every style and effect, on the busy photo.
  const emojiTiles = TEXT_STYLE_IDS.flatMap((style) =>
    TEXT_EFFECTS.map((effect) => ({
      name: `emoji · ${style} · ${effect}`,
      input: {
        caption: EMOJI_CAPTION,
        textStyleId: style,
        captionSize: 'medium',
        textEffect: effect,
        role: 'body',
      } satisfies Omit<RenderSlideInput, 'image'>,
    })),
  );
  // Japanese, Chinese and Korean at every size and effect, a row each.
  const cjkTiles = CJK_ROWS.flatMap(([language, caption]) =>
    CAPTION_SIZES.flatMap((size) =>
      TEXT_EFFECTS.map((effect) => ({
        name: `${language} · ${size} · ${effect}`,
        input: {
          caption,
          language,
          textStyleId: 'primary-sans',
          captionSize: size,
          textEffect: effect,
          role: 'hook',
        } satisfies Omit<RenderSlideInput, 'image'>,
      })),
    ),
  );
  for (const row of [emojiTiles.slice(0, perRow), emojiTiles.slice(perRow), ...chunks(cjkTiles, 6)]) {
    for (const [n, each] of row.entries()) {
      const x = columnX(n);
      overlays.push({ input: await label(each.name, TILE.width), left: x, top: y });
      overlays.push({ input: await tile(busy, each.input, true), left: x, top: y + LABEL });
    }
    y += LABEL + TILE.height + GAP;
  }

  mkdirSync(dirname(OUT), { recursive: true });
  await sharp({ create: { width: columnX(perRow), height: y, channels: 3, background: '#f4f4f4' } })
    .composite(overlays)
    .png()
    .toFile(OUT);
  process.stdout.write(`wrote ${OUT} (${overlays.length / 2} slides)\n`);
}

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, n) => items.slice(n * size, (n + 1) * size));
}

await main();
