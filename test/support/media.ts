import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { CoreDeps } from '../../src/core/context.js';
import type { MediaDoc } from '../../src/core/media/documents.js';
import type { TestServer } from './http.js';
import { buildMp4 } from './video.js';

/** A real JPEG of the given size, made with sharp at test time. */
export function makeJpeg(width = 640, height = 480): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer();
}

/** A real WebP image. */
export function makeWebp(width = 300, height = 900): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 20, g: 140, b: 90 } } })
    .webp()
    .toBuffer();
}

/** A real PNG image with an alpha channel (stored converted to JPEG). */
export function makePng(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 64, channels: 4, background: '#336699' } })
    .png()
    .toBuffer();
}

/** A minimal valid MP4 (one 1080x1920 video track, 10 s) with `payloadBytes` of media data; `brand` is ftyp's. */
export function makeMp4(payloadBytes = 4096, brand = 'isom'): Buffer {
  return buildMp4({ payloadBytes, brand });
}

/** Posts a multipart upload with `fields` and, unless `file` is null, a `file` part. */
export async function upload(
  server: TestServer,
  apiKey: string | undefined,
  file: { bytes: Buffer; name?: string; type?: string } | null,
  fields: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) {
    const blob = new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' });
    form.append('file', blob, file.name ?? 'upload.bin');
  }
  return server.request('/public/v1/media', { method: 'POST', body: form, ...(apiKey ? { apiKey } : {}) });
}

/** A media document stored directly (composite and generated media have no upload endpoint). */
export async function buildMedia(
  deps: CoreDeps,
  workspaceId: string,
  overrides: Partial<MediaDoc> = {},
): Promise<MediaDoc> {
  const now = new Date();
  const doc: MediaDoc = {
    _id: randomUUID(),
    workspaceId,
    source: 'upload',
    status: 'READY',
    storageKey: randomBytes(16).toString('hex'),
    publicToken: randomBytes(16).toString('hex'),
    mimeType: 'image/jpeg',
    mediaType: 'image',
    size: 1000,
    sha256: '0'.repeat(64),
    originalFileName: 'built.jpg',
    folderId: null,
    thumbnailMetadata: { width: 10, height: 10 },
    preview: null,
    finalizedAt: now,
    createdAt: now,
    ...overrides,
  };
  await deps.db.media.insertOne(doc);
  return doc;
}

/** The path part of a public URL, to request it from the test server. */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}
