import { createHash } from 'node:crypto';
import sharp from 'sharp';

export const IMAGE_SIZES = ['1024x1024', '1024x1536', '1536x1024'] as const;
export const OUTPUT_FORMATS = ['png', 'jpeg', 'webp'] as const;

/**
 * A deterministic picture for a prompt: a small grid of colours, bands and noise derived from the
 * prompt's hash, scaled up (linearly: a sharper kernel doubles the cost for nothing a test sees). Different
 * prompts give visibly different images; one costs about 25 ms of CPU.
 */
export async function drawImage(
  prompt: string,
  size: string,
  format: (typeof OUTPUT_FORMATS)[number],
): Promise<Buffer> {
  const [width, height] = size.split('x').map(Number) as [number, number];
  const hash = createHash('sha256').update(`${prompt}\n${size}`).digest();
  const w = Math.round(width / 16);
  const h = Math.round(height / 16);
  const raw = Buffer.alloc(w * h * 3);
  const a = [hash[0], hash[1], hash[2]] as number[];
  const b = [hash[3], hash[4], hash[5]] as number[];
  const angle = ((hash[6] as number) / 255) * Math.PI * 2;
  let noise = hash.readUInt32LE(8);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const t = (Math.cos(angle) * x) / w + (Math.sin(angle) * y) / h;
      const band = Math.sin((x + y * ((hash[7] as number) % 5)) / (2 + ((hash[9] as number) % 4))) * 30;
      noise = (noise * 1664525 + 1013904223) >>> 0;
      const grain = (noise >>> 24) / 8 - 16;
      for (let c = 0; c < 3; c++) {
        const mix = (a[c] as number) * (1 - (t % 1)) + (b[c] as number) * (t % 1);
        raw[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(mix + band + grain)));
      }
    }
  }
  const image = sharp(raw, { raw: { width: w, height: h, channels: 3 } }).resize(width, height, { kernel: 'linear' });
  if (format === 'jpeg') return image.jpeg({ quality: 85 }).toBuffer();
  if (format === 'webp') return image.webp({ quality: 80 }).toBuffer();
  return image.png({ compressionLevel: 1 }).toBuffer();
}
