/**
 * Caption compositing (npm run bench:composite): the renderer behind POST /slides/composite, on
 * 1080x1920 photos, against a plain sharp decode → resize/crop → JPEG encode of the same images in
 * the same run, with the same JPEG settings (the least any compositor must do). One slide (median of several) and 35 slides (the
 * spec's most), the 35 at the same concurrency as the operation uses; then one slide with an emoji
 * caption and one with a Japanese caption (phrase breaking). Goals: at most 2x the baseline, at most
 * 40 ms a slide, 35 slides under 1.5 s.
 */
import os from 'node:os';
import sharp from 'sharp';
import {
  renderSlide,
  prepareFonts,
  SLIDE_JPEG,
  type TextEffect,
  type TextStyleId,
} from '../src/core/slides/render/index.js';
import { RENDER_CONCURRENCY } from '../src/core/slides/composite-slides.js';
import { mapLimit } from './support/util.js';
import { busyPhoto } from './support/photos.js';

const SLIDES = 35;
const SINGLE_RUNS = 15;
const ROUNDS = 3;
const STYLES: TextStyleId[] = ['primary-sans', 'anton', 'montserrat', 'poppins', 'league-spartan'];
const CAPTION =
  'Five habits that quietly changed my mornings, and why the second one surprised everyone I told about it';

async function baseline(image: Buffer): Promise<Buffer> {
  return sharp(image).rotate().resize(1080, 1920, { fit: 'cover' }).jpeg(SLIDE_JPEG).toBuffer();
}

const EMOJI_CAPTION = 'Sleep better tonight 😴✨ 🌙 five habits that quietly changed my mornings 💪🏽🔥';
const JAPANESE_CAPTION = 'ヒント1：東京で朝ごはんを食べるおすすめの場所と、毎朝5時に起きて変わったこと';

async function captioned(image: Buffer, caption: string, language: string, index: number): Promise<Buffer> {
  const slide = await renderSlide({
    image,
    caption,
    language,
    textStyleId: STYLES[index % STYLES.length] as TextStyleId,
    captionSize: 'medium',
    textEffect: index % 2 === 0 ? 'outline' : 'box',
    role: 'body',
  });
  return slide.jpeg;
}

async function composite(image: Buffer, index: number): Promise<Buffer> {
  const effect: TextEffect = index % 3 === 2 ? 'box' : 'outline';
  const slide = await renderSlide({
    image,
    caption: index === 0 ? 'Five habits that changed my mornings' : CAPTION,
    textStyleId: STYLES[index % STYLES.length] as TextStyleId,
    captionSize: 'medium',
    textEffect: effect,
    role: index === 0 ? 'hook' : 'body',
  });
  return slide.jpeg;
}

/** The process's CPU time (every thread) spent on `work`, in ms: steadier than wall time on a busy machine. */
async function cpuTimed(work: () => Promise<unknown>): Promise<number> {
  const started = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(started);
  return (spent.user + spent.system) / 1000;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  await prepareFonts();
  const images = await Promise.all(Array.from({ length: SLIDES }, (_, i) => busyPhoto(1080, 1920, i)));
  // Warm both paths (fontconfig's cache, libvips' operation cache, the JIT).
  for (let i = 0; i < 5; i++) await Promise.all([baseline(images[i] as Buffer), composite(images[i] as Buffer, i)]);

  for (let i = 0; i < 3; i++) {
    await captioned(images[i] as Buffer, EMOJI_CAPTION, 'en', i);
    await captioned(images[i] as Buffer, JAPANESE_CAPTION, 'ja', i);
  }

  const one = { base: [] as number[], comp: [] as number[], emoji: [] as number[], japanese: [] as number[] };
  for (let run = 0; run < SINGLE_RUNS; run++) {
    const image = images[run % SLIDES] as Buffer;
    one.base.push(await timed(() => baseline(image)));
    one.comp.push(await timed(() => composite(image, run % SLIDES)));
    one.emoji.push(await timed(() => captioned(image, EMOJI_CAPTION, 'en', run)));
    one.japanese.push(await timed(() => captioned(image, JAPANESE_CAPTION, 'ja', run)));
  }
  const cpu = { base: [] as number[], comp: [] as number[], emoji: [] as number[], japanese: [] as number[] };
  for (let run = 0; run < SINGLE_RUNS; run++) {
    const image = images[run % SLIDES] as Buffer;
    cpu.base.push(await cpuTimed(() => baseline(image)));
    cpu.comp.push(await cpuTimed(() => composite(image, run % SLIDES)));
    cpu.emoji.push(await cpuTimed(() => captioned(image, EMOJI_CAPTION, 'en', run)));
    cpu.japanese.push(await cpuTimed(() => captioned(image, JAPANESE_CAPTION, 'ja', run)));
  }
  const all = { base: [] as number[], comp: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    all.base.push(await timed(() => mapLimit(images, RENDER_CONCURRENCY, (image) => baseline(image))));
    all.comp.push(await timed(() => mapLimit(images, RENDER_CONCURRENCY, (image, i) => composite(image, i))));
  }

  const oneBase = median(one.base);
  const oneComp = median(one.comp);
  const oneEmoji = median(one.emoji);
  const oneJapanese = median(one.japanese);
  const allBase = median(all.base);
  const allComp = median(all.comp);
  const perSlide = allComp / SLIDES;
  const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const rows: [string, string][] = [
    [
      'machine',
      `${os.cpus().length} cores, libvips threads ${sharp.concurrency()}, ${RENDER_CONCURRENCY} slides at once`,
    ],
    ['source images', `${SLIDES} busy photos, 1080x1920 JPEG`],
    ['1 slide, baseline (median of 15)', `${oneBase.toFixed(1)} ms`],
    ['1 slide, composite (median of 15)', `${oneComp.toFixed(1)} ms`],
    [`${SLIDES} slides, baseline (median of ${ROUNDS})`, `${allBase.toFixed(0)} ms`],
    [`${SLIDES} slides, composite (median of ${ROUNDS})`, `${allComp.toFixed(0)} ms`],
    ['1 slide, emoji caption (median of 15)', `${oneEmoji.toFixed(1)} ms`],
    ['1 slide, Japanese caption (median of 15)', `${oneJapanese.toFixed(1)} ms`],
    ['1 slide / baseline', `${(oneComp / oneBase).toFixed(2)}x (goal ≤ 2x): ${pass(oneComp / oneBase <= 2)}`],
    ['1 emoji slide / baseline', `${(oneEmoji / oneBase).toFixed(2)}x (goal ≤ 2x): ${pass(oneEmoji / oneBase <= 2)}`],
    [
      '1 Japanese slide / baseline',
      `${(oneJapanese / oneBase).toFixed(2)}x (goal ≤ 2x): ${pass(oneJapanese / oneBase <= 2)}`,
    ],
    [
      '1 slide, CPU time: baseline, composite, emoji, Japanese',
      [cpu.base, cpu.comp, cpu.emoji, cpu.japanese].map((runs) => `${median(runs).toFixed(1)} ms`).join(', '),
    ],
    [
      '  CPU time / baseline: composite, emoji, Japanese',
      [cpu.comp, cpu.emoji, cpu.japanese].map((runs) => `${(median(runs) / median(cpu.base)).toFixed(2)}x`).join(', '),
    ],
    [`${SLIDES} slides / baseline`, `${(allComp / allBase).toFixed(2)}x (goal ≤ 2x): ${pass(allComp / allBase <= 2)}`],
    ['per slide in the 35', `${perSlide.toFixed(1)} ms (goal ≤ 40 ms): ${pass(perSlide <= 40)}`],
    [`${SLIDES} slides in all`, `${allComp.toFixed(0)} ms (goal < 1500 ms): ${pass(allComp < 1500)}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
}

await main();
