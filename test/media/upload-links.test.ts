import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredUploadLinks } from '../../src/core/media/upload-links.js';
import { createLogger } from '../../src/logger.js';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { makeJpeg, makeMp4 } from '../support/media.js';
import { freePort } from '../support/spawn.js';

// Upload URLs: asked for with a key, then used without one, once, as a shell would (`curl -T`).
/** The server's log, captured: a broken-off upload must not read as a server failure. */
const logLines: string[] = [];
const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logLines.push(line) } });
const port = await freePort();
const { t, server } = await useTestServer({
  database: { logger },
  server: { port, media: { uploadBaseUrl: `http://127.0.0.1:${port}`, limits: { image: 200_000, video: 300_000 } } },
});
let work: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'postdeck-upload-links-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

type Link = { uploadUrl: string; method: string; expiresAt: string; maxBytes: object; command: string };

async function newLink(apiKey: string, body: Record<string, unknown> = { fileName: 'clip.mp4' }) {
  const answer = await server.request('/public/v1/media/upload-urls', {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: answer.status, body: (await answer.json()) as Link & { code?: string } };
}

const put = (url: string, bytes: Buffer) => fetch(url, { method: 'PUT', body: new Uint8Array(bytes) });

describe('upload URLs', () => {
  it('hands out a link whose curl command uploads the file once, as the key that asked', async () => {
    const tenant = await buildTenant(t.deps);
    const { status, body: link } = await newLink(tenant.apiKey);
    expect(status).toBe(201);
    expect(link.uploadUrl).toMatch(new RegExp(`^${server.url}/public/v1/uploads/pdu_[A-Za-z0-9_-]{43}$`));
    expect(link.method).toBe('PUT');
    expect(new Date(link.expiresAt).getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(link.maxBytes).toEqual({ image: 200_000, video: 300_000 });

    const file = path.join(work, 'clip.mp4');
    const video = makeMp4(250_000);
    await writeFile(file, video);
    const { stdout } = await promisify(execFile)('sh', ['-c', link.command.replace('FILE', `'${file}'`)]);
    const media = JSON.parse(stdout) as { id: string; mediaType: string; size: number; originalFileName: string };
    expect(media).toMatchObject({ mediaType: 'video', size: video.length, originalFileName: 'clip.mp4' });
    const stored = await t.deps.db.media.findOne({ _id: media.id });
    expect(stored?.workspaceId).toBe(tenant.workspaceId);

    const again = await put(link.uploadUrl, makeMp4(100));
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('conflict');
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
  });

  it('checks the bytes as REST does, and a refused file leaves the link usable for a corrected retry', async () => {
    const tenant = await buildTenant(t.deps);
    const { body: link } = await newLink(tenant.apiKey, { fileName: 'photo.jpg', mediaType: 'image' });
    const wrongType = await put(link.uploadUrl, makeMp4(1_000));
    expect(wrongType.status).toBe(400);
    expect(((await wrongType.json()) as { code: string }).code).toBe('invalid_media_file');
    const tooLarge = await put(link.uploadUrl, Buffer.concat([await makeJpeg(), Buffer.alloc(250_000)]));
    expect(tooLarge.status).toBe(413);
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
    const right = await put(link.uploadUrl, await makeJpeg(320, 240));
    expect(right.status).toBe(201);
    expect(await right.json()).toMatchObject({ mediaType: 'image', thumbnailMetadata: { width: 320, height: 240 } });
  });

  it('lets one of two uploads at once through', async () => {
    const tenant = await buildTenant(t.deps);
    const { body: link } = await newLink(tenant.apiKey);
    const answers = await Promise.all([put(link.uploadUrl, makeMp4(200_000)), put(link.uploadUrl, makeMp4(200_000))]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
  });

  it('refuses unknown, expired and revoked-key links', async () => {
    const tenant = await buildTenant(t.deps);
    const unknown = await put(`${server.url}/public/v1/uploads/pdu_${'A'.repeat(43)}`, makeMp4(100));
    expect(unknown.status).toBe(404);
    const malformed = await put(`${server.url}/public/v1/uploads/nonsense`, makeMp4(100));
    expect(malformed.status).toBe(404);

    const { body: expiring } = await newLink(tenant.apiKey);
    await t.deps.db.uploadLinks.updateMany({ workspaceId: tenant.workspaceId }, { $set: { expiresAt: new Date(0) } });
    const expired = await put(expiring.uploadUrl, makeMp4(100));
    expect(expired.status).toBe(404);
    expect(((await expired.json()) as { message: string }).message).toMatch(/expired/);

    const { body: revokedLink } = await newLink(tenant.apiKey);
    await t.deps.db.apiKeys.updateMany({ workspaceId: tenant.workspaceId }, { $set: { revokedAt: new Date() } });
    const revoked = await put(revokedLink.uploadUrl, makeMp4(100));
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { code: string }).code).toBe('invalid_api_key');
    expect(await t.deps.db.media.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
  });

  it("validates the request, needs a key, and answers not_found for another workspace's folder", async () => {
    const tenant = await buildTenant(t.deps);
    const other = await buildTenant(t.deps);
    const folder = await server.request('/public/v1/media/folders', {
      method: 'POST',
      apiKey: other.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'theirs' }),
    });
    const folderId = ((await folder.json()) as { id: string }).id;
    const foreign = await newLink(tenant.apiKey, { fileName: 'a.mp4', folderId });
    expect(foreign.status).toBe(404);
    const missing = await newLink(tenant.apiKey, {});
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('invalid_request');
    for (const [field, value] of [
      ['mimeType', 'xxxx'],
      ['mimeType', ''],
      ['mimeType', 'image/gif'],
      ['mediaType', 'audio'],
    ]) {
      const wrong = await newLink(tenant.apiKey, { fileName: 'a.mp4', [field!]: value });
      expect(wrong.status, `${field}: ${value}`).toBe(400);
      const body = wrong.body as unknown as { code: string; details: { path: string[] }[] };
      expect(body.code).toBe('invalid_request');
      expect(body.details[0]?.path).toEqual(['body', field]);
    }
    const noKey = await server.request('/public/v1/media/upload-urls', { method: 'POST' });
    expect(noKey.status).toBe(401);
    const wrongKey = await newLink('service_sk_wrong');
    expect(wrongKey.status).toBe(401);
    expect(await t.deps.db.uploadLinks.countDocuments({ workspaceId: tenant.workspaceId })).toBe(0);
  });

  it('answers an upload the client breaks off as a 400 logged at info, and keeps the link for a retry', async () => {
    const tenant = await buildTenant(t.deps);
    const { body: link } = await newLink(tenant.apiKey);
    const from = logLines.length;
    const url = new URL(link.uploadUrl);
    const req = request({
      host: url.hostname,
      port: url.port,
      method: 'PUT',
      path: url.pathname,
      headers: { 'content-length': String(250_000) },
    });
    req.on('error', () => undefined);
    req.write(makeMp4(100_000));
    const filesIn = async () =>
      (await readdir(server.mediaDir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).length;
    const stored = await filesIn();
    await expect.poll(filesIn, { timeout: 10_000 }).toBeGreaterThan(stored);
    req.destroy();

    const logged = () =>
      logLines.slice(from).map((line) => JSON.parse(line) as { level: number; path?: string; status?: number });
    const requestLine = () =>
      logged().find((line) => line.path === '/public/v1/uploads/…' && line.status !== undefined);
    await expect.poll(requestLine, { timeout: 10_000 }).toBeDefined();
    expect(requestLine()).toMatchObject({ level: 30, status: 400 });
    expect(logged().filter((line) => line.level >= 50)).toEqual([]);
    await expect.poll(filesIn, { timeout: 10_000 }).toBe(stored);
    expect((await put(link.uploadUrl, makeMp4(1_000))).status).toBe(201);
  });

  it('purges expired links with their upload leases, and keeps live ones', async () => {
    const tenant = await buildTenant(t.deps);
    const { body: used } = await newLink(tenant.apiKey, { fileName: 'a.jpg' });
    expect((await put(used.uploadUrl, await makeJpeg())).status).toBe(201);
    await newLink(tenant.apiKey);
    const [spent] = await t.deps.db.uploadLinks.find({ workspaceId: tenant.workspaceId, state: 'used' }).toArray();
    const leaseKey = `upload-link:${spent!._id}`;
    expect(await t.deps.db.leases.countDocuments({ key: leaseKey })).toBe(1);
    await t.deps.db.uploadLinks.updateOne({ _id: spent!._id }, { $set: { expiresAt: new Date(0) } });
    expect(await purgeExpiredUploadLinks(t.deps)).toBeGreaterThanOrEqual(1);
    expect(await t.deps.db.uploadLinks.countDocuments({ _id: spent!._id })).toBe(0);
    expect(await t.deps.db.leases.countDocuments({ key: leaseKey })).toBe(0);
    expect(await t.deps.db.uploadLinks.countDocuments({ workspaceId: tenant.workspaceId })).toBe(1);
  });
});
