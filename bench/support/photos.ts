import sharp from 'sharp';

/** A small deterministic generator (mulberry32), so every run draws the same photos. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A photo that is hard to read text on: hundreds of overlapping shapes in saturated colours, pure
 * white and pure black among them, over per-pixel grain (which also makes its JPEG as costly to
 * decode as a real photo's).
 */
export async function busyPhoto(width: number, height: number, seed = 1): Promise<Buffer> {
  const next = random(seed);
  const shapes: string[] = [];
  for (let i = 0; i < 400; i++) {
    const colour = i % 7 === 0 ? '#fff' : i % 7 === 1 ? '#000' : `hsl(${Math.floor(next() * 360)},85%,55%)`;
    const x = Math.floor(next() * width);
    const y = Math.floor(next() * height);
    const size = 20 + Math.floor(next() * width * 0.2);
    shapes.push(
      next() < 0.5
        ? `<circle cx="${x}" cy="${y}" r="${size / 2}" fill="${colour}"/>`
        : `<rect x="${x - size / 2}" y="${y - size / 2}" width="${size}" height="${size * 0.6}" fill="${colour}" transform="rotate(${Math.floor(next() * 90)} ${x} ${y})"/>`,
    );
  }
  const drawing = await sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#777"/>${shapes.join('')}</svg>`,
    ),
  )
    .removeAlpha()
    .raw()
    .toBuffer();
  const grain = random(seed * 7919);
  for (let i = 0; i < drawing.length; i++) {
    const value = (drawing[i] as number) + Math.floor((grain() - 0.5) * 40);
    drawing[i] = Math.max(0, Math.min(255, value));
  }
  return sharp(drawing, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** A smooth pale gradient, like a bright sky: the case where white text needs its outline. */
export function lightPhoto(width: number, height: number): Promise<Buffer> {
  return gradient(width, height, '#fdfbf3', '#d9e8f5');
}

/** A smooth near-black gradient, like a night shot. */
export function darkPhoto(width: number, height: number): Promise<Buffer> {
  return gradient(width, height, '#1b1d2a', '#050507');
}

function gradient(width: number, height: number, top: string, bottom: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${top}"/><stop offset="1" stop-color="${bottom}"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  return sharp(Buffer.from(svg)).removeAlpha().jpeg({ quality: 90 }).toBuffer();
}
