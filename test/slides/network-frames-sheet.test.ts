import { mkdir, writeFile } from 'node:fs/promises';
import sharp, { type OverlayOptions } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTAGRAM_FRAMES } from '../../src/core/providers/instagram/frames.js';
import type { SlideFrame } from '../../src/core/providers/port.js';
import { TIKTOK_FRAMES } from '../../src/core/providers/tiktok/frames.js';
import { FREE_AND_CREATOR_PLANS, startAiStack, type AiStack } from '../support/ai.js';
import { CAPTIONS, twoNetworks, type Framed } from '../support/two-networks.js';
import { pathOf, upload } from '../support/media.js';
import { call } from '../support/posts.js';

// One slideshow in TikTok's frame and in a carousel network's (Instagram's), the safe areas drawn on, to look at.
let stack: AiStack;
beforeAll(async () => {
  stack = await startAiStack({ plans: FREE_AND_CREATOR_PLANS, instagram: true });
});
afterAll(() => stack.stop());

describe('slides framed per network, looked at', () => {
  it('draws a contact sheet of one slideshow in both frames (test-artifacts/slides-per-network.png)', async () => {
    const { tenant, tiktok, carousel } = await twoNetworks(stack);
    const photo = await sharp({
      create: { width: 1024, height: 1536, channels: 3, background: '#6a8caf' },
    })
      .composite([
        {
          input: Buffer.from(
            `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1536"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f6d365"/><stop offset="0.5" stop-color="#fda085"/><stop offset="1" stop-color="#2b5876"/></linearGradient></defs><rect width="1024" height="1536" fill="url(#g)"/><circle cx="512" cy="520" r="180" fill="#fff3b0"/><rect x="0" y="1100" width="1024" height="436" fill="#1d3b53"/></svg>`,
          ),
        },
      ])
      .jpeg()
      .toBuffer();
    const uploaded = await upload(stack.server, tenant.apiKey, {
      bytes: photo,
      name: 'sunrise.jpg',
      type: 'image/jpeg',
    });
    const image = String(((await uploaded.json()) as { id: string }).id);
    const answer = await call(stack.server, tenant.apiKey, 'POST', '/slides/composite', {
      platformIds: [tiktok._id, carousel._id],
      slides: CAPTIONS.map((caption, index) => ({
        index,
        mediaId: image,
        caption,
        textEffect: index === 2 ? 'box' : 'outline',
      })),
    });
    expect(answer.status).toBe(201);
    const frames = answer.body.frames as Framed[];
    const frameOf = { tiktok: TIKTOK_FRAMES.slides, instagram: INSTAGRAM_FRAMES.slides } as Record<string, SlideFrame>;
    const scale = 0.3;
    const tiles: OverlayOptions[] = [];
    let top = 10;
    for (const framed of frames) {
      const frame = frameOf[framed.provider] as SlideFrame;
      for (const [n, slide] of framed.slides.entries()) {
        const response = await stack.server.request(pathOf(slide.publicUrl));
        const bytes = Buffer.from(await response.arrayBuffer());
        const { top: st, right, bottom, left } = frame.safeArea;
        const zone = `<svg xmlns="http://www.w3.org/2000/svg" width="${frame.width}" height="${frame.height}"><rect x="${left}" y="${st}" width="${frame.width - left - right}" height="${frame.height - st - bottom}" fill="none" stroke="#00f2ea" stroke-width="6" stroke-dasharray="24 16"/></svg>`;
        const marked = await sharp(bytes)
          .composite([{ input: Buffer.from(zone) }])
          .png()
          .toBuffer();
        const tile = await sharp(marked)
          .resize(Math.round(frame.width * scale))
          .png()
          .toBuffer();
        tiles.push({ input: tile, left: 10 + n * Math.round(1080 * scale + 10), top });
      }
      top += Math.round(frame.height * scale) + 10;
    }
    const sheet = await sharp({
      create: { width: 10 + 3 * Math.round(1080 * scale + 10), height: top, channels: 3, background: '#ffffff' },
    })
      .composite(tiles)
      .png()
      .toBuffer();
    await mkdir('test-artifacts', { recursive: true });
    await writeFile('test-artifacts/slides-per-network.png', sheet);
    expect((await sharp(sheet).metadata()).height).toBe(top);
  });
});
