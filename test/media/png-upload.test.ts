import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { connectMcpOverHttp } from '../support/mcp.js';
import { makeJpeg, pathOf, upload } from '../support/media.js';

// PNG in, JPEG out: screenshots and image-model output are PNG, TikTok takes JPEG and WebP. Every way
// in (the form, an upload URL, MCP) stores a PNG converted, keeps its name and says so in the record.
const { t, server } = await useTestServer();
let tenant: Awaited<ReturnType<typeof buildTenant>>;
const clients: Client[] = [];
beforeAll(async () => {
  tenant = await buildTenant(t.deps);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

type Media = {
  id: string;
  publicUrl: string;
  previewUrl: string;
  mimeType: string;
  convertedFrom: string | null;
  size: number;
  originalFileName: string;
  thumbnailMetadata: { width: number; height: number };
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An opaque 400x300 PNG like a screenshot: a white page, a black bar and a saturated red block. */
function screenshotPng(): Promise<Buffer> {
  const block = (width: number, height: number, rgb: [number, number, number]) =>
    sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
      .png()
      .toBuffer();
  return Promise.all([block(300, 20, [0, 0, 0]), block(100, 100, [220, 20, 40])]).then(([bar, red]) =>
    sharp({ create: { width: 400, height: 300, channels: 3, background: '#ffffff' } })
      .composite([
        { input: bar, left: 50, top: 40 },
        { input: red, left: 250, top: 150 },
      ])
      .png()
      .toBuffer(),
  );
}

/** A 64x64 PNG that is transparent but for an opaque black 20x20 square in the middle. */
function transparentPng(): Promise<Buffer> {
  const square = sharp({ create: { width: 20, height: 20, channels: 4, background: '#000000ff' } })
    .png()
    .toBuffer();
  return square.then((input) =>
    sharp({ create: { width: 64, height: 64, channels: 4, background: '#00000000' } })
      .composite([{ input, left: 22, top: 22 }])
      .png()
      .toBuffer(),
  );
}

/** The RGB of one pixel of an encoded image. */
async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]] as number[];
}

function near(actual: number[], expected: number[], tolerance = 12): boolean {
  return actual.every((value, i) => Math.abs(value - (expected[i] as number)) <= tolerance);
}

async function storedFiles(): Promise<string[]> {
  const entries = await readdir(server.mediaDir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** The public URL's bytes and type, fetched as TikTok would. */
async function served(url: string): Promise<{ type: string | null; bytes: Buffer }> {
  const response = await server.request(pathOf(url));
  expect(response.status).toBe(200);
  return { type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

async function connect(apiKey: string): Promise<Client> {
  const client = await connectMcpOverHttp(server.url, apiKey);
  clients.push(client);
  return client;
}

describe('a PNG upload', () => {
  it('is stored as a full-quality JPEG under its own name, the record saying it was a PNG', async () => {
    const before = await storedFiles();
    const response = await upload(server, tenant.apiKey, { bytes: await screenshotPng(), name: 'shot.png' });
    expect(response.status).toBe(201);
    const media = (await response.json()) as Media;
    expect(media).toMatchObject({
      mimeType: 'image/jpeg',
      convertedFrom: 'image/png',
      mediaType: 'image',
      originalFileName: 'shot.png',
      status: 'READY',
      source: 'upload',
      thumbnailMetadata: { width: 400, height: 300 },
    });

    const original = await served(media.publicUrl);
    expect(original.type).toBe('image/jpeg');
    expect(original.bytes.length).toBe(media.size);
    expect(await sharp(original.bytes).metadata()).toMatchObject({
      format: 'jpeg',
      width: 400,
      height: 300,
      chromaSubsampling: '4:4:4',
    });
    expect(near(await pixel(original.bytes, 10, 10), [255, 255, 255])).toBe(true);
    expect(near(await pixel(original.bytes, 200, 50), [0, 0, 0])).toBe(true);
    expect(near(await pixel(original.bytes, 300, 200), [220, 20, 40])).toBe(true);
    expect((await served(media.previewUrl)).type).toBe('image/webp');

    // The JPEG and its preview are all that was added; the PNG's bytes are gone from the store.
    const added = (await storedFiles()).filter((file) => !before.includes(file));
    expect(added).toHaveLength(2);
    for (const file of added) expect((await readFile(file)).subarray(0, 8).equals(PNG_SIGNATURE)).toBe(false);
  });

  it('has its transparency flattened on white, and may be declared image/png', async () => {
    const response = await upload(
      server,
      tenant.apiKey,
      { bytes: await transparentPng(), name: 'logo.png' },
      { mimeType: 'image/png', mediaType: 'image' },
    );
    expect(response.status).toBe(201);
    const media = (await response.json()) as Media;
    expect(media).toMatchObject({ mimeType: 'image/jpeg', convertedFrom: 'image/png', originalFileName: 'logo.png' });
    const { bytes } = await served(media.publicUrl);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'jpeg', channels: 3 });
    expect(near(await pixel(bytes, 2, 2), [255, 255, 255])).toBe(true);
    expect(near(await pixel(bytes, 32, 32), [0, 0, 0])).toBe(true);
  });

  it('comes through an upload URL converted, named as the link says', async () => {
    const link = await server.request('/public/v1/media/upload-urls', {
      method: 'POST',
      apiKey: tenant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'diagram.png' }),
    });
    const { uploadUrl } = (await link.json()) as { uploadUrl: string };
    const put = await server.request(pathOf(uploadUrl), {
      method: 'PUT',
      body: new Uint8Array(await screenshotPng()),
    });
    expect(put.status).toBe(201);
    const media = (await put.json()) as Media;
    expect(media).toMatchObject({
      mimeType: 'image/jpeg',
      convertedFrom: 'image/png',
      originalFileName: 'diagram.png',
    });
    expect((await served(media.publicUrl)).type).toBe('image/jpeg');
  });

  it('comes through MCP upload_media converted, convertedFrom in the tool result and its schema', async () => {
    const client = await connect(tenant.apiKey);
    const { tools } = await client.listTools();
    const tool = tools.find((each) => each.name === 'upload_media');
    expect(tool?.outputSchema?.properties).toHaveProperty('convertedFrom');
    const result = await client.callTool({
      name: 'upload_media',
      arguments: { fileName: 'from-agent.png', content: (await screenshotPng()).toString('base64') },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      mimeType: 'image/jpeg',
      convertedFrom: 'image/png',
      originalFileName: 'from-agent.png',
    });
  });

  it('is stated in the OpenAPI document: PNG among the declared types, convertedFrom on Media', async () => {
    const response = await server.request('/public/v1/openapi.json');
    const document = (await response.json()) as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: unknown[] }> }> };
    };
    const { schemas } = document.components;
    expect(schemas.Media?.properties).toHaveProperty('convertedFrom');
    expect(schemas.MediaUpload?.properties.mimeType?.enum).toContain('image/png');
  });
});

describe('what is not converted', () => {
  it('stores a JPEG byte for byte, convertedFrom null', async () => {
    const bytes = await makeJpeg(120, 80);
    const response = await upload(server, tenant.apiKey, { bytes, name: 'photo.jpg' });
    expect(response.status).toBe(201);
    const media = (await response.json()) as Media;
    expect(media).toMatchObject({ mimeType: 'image/jpeg', convertedFrom: null, size: bytes.length });
    expect((await served(media.publicUrl)).bytes.equals(bytes)).toBe(true);
  });

  it.each([
    [
      'a PDF, naming what is accepted',
      Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'.repeat(4)),
      /JPEG, WebP or PNG image .*MP4, WebM or QuickTime video/,
    ],
    ['a PNG broken after its signature', Buffer.concat([PNG_SIGNATURE, Buffer.alloc(200, 7)]), /could not be decoded/],
  ])('refuses %s with invalid_media_file, keeping nothing', async (_label, bytes, message) => {
    const before = await storedFiles();
    const count = await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId });
    const response = await upload(server, tenant.apiKey, { bytes, name: 'file.pdf' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'invalid_media_file',
      message: expect.stringMatching(message),
    });
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(count);
    expect(await storedFiles()).toEqual(before);
  });
});
