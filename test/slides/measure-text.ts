// Run in a fresh process (fontconfig's setup is per process): prints a text's size and ink as JSON.
// `ours <style> <language> <text>`: through Postdeck's renderer; `reference <fontfile> <family> <text>`: that file alone.
import sharp from 'sharp';
import { drawTextMask } from '../../src/core/slides/render/text-mask.js';

const [mode, a, b, text] = process.argv.slice(2) as [string, string, string, string];
if (mode === 'ours') {
  const mask = await drawTextMask(a as never, text, b, 40, 4000);
  console.log(JSON.stringify({ width: mask.width, height: mask.height, ink: inkOf(mask.data) }));
} else {
  const { data, info } = await sharp({ text: { text, font: `${b}, Bold 40`, fontfile: a, dpi: 72 } })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  console.log(JSON.stringify({ width: info.width, height: info.height, ink: inkOf(data) }));
}

/** How much ink the glyphs put down: the same text in the same font puts down the same. */
function inkOf(mask: Buffer): number {
  let sum = 0;
  for (const value of mask) sum += value;
  return Math.round(sum / 255);
}
