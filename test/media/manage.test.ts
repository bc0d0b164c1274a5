import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildTenant } from '../support/factories.js';
import { useTestServer } from '../support/http.js';
import { makeJpeg, pathOf, upload } from '../support/media.js';

const { t, server } = await useTestServer();

type Tenant = Awaited<ReturnType<typeof buildTenant>>;
type Media = { id: string; folderId: string | null; publicUrl: string; storageKey: string };

function call(tenant: Tenant, method: string, path: string, body?: unknown): Promise<Response> {
  return server.request(`/public/v1${path}`, {
    method,
    apiKey: tenant.apiKey,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

async function newMedia(tenant: Tenant): Promise<Media> {
  return (await (await upload(server, tenant.apiKey, { bytes: await makeJpeg(30, 30) })).json()) as Media;
}

async function newFolder(tenant: Tenant, name: string): Promise<string> {
  return ((await (await call(tenant, 'POST', '/media/folders', { name })).json()) as { id: string }).id;
}

describe('one media object', () => {
  it('is read, moved between folders and the root, and kept from other workspaces', async () => {
    const tenant = await buildTenant(t.deps);
    const other = await buildTenant(t.deps);
    const media = await newMedia(tenant);
    expect(await (await call(tenant, 'GET', `/media/${media.id}`)).json()).toEqual(media);

    const folder = await newFolder(tenant, 'Moved');
    const moved = await call(tenant, 'PATCH', `/media/${media.id}`, { folderId: folder });
    expect(await moved.json()).toMatchObject({ id: media.id, folderId: folder });
    expect(await (await call(tenant, 'GET', `/media/${media.id}`)).json()).toMatchObject({ folderId: folder });
    expect(await (await call(tenant, 'PATCH', `/media/${media.id}`, { folderId: null })).json()).toMatchObject({
      folderId: null,
    });

    const theirFolder = await newFolder(other, 'Theirs');
    expect((await call(tenant, 'PATCH', `/media/${media.id}`, { folderId: theirFolder })).status).toBe(404);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { folderId: null }],
      ['DELETE', undefined],
    ] as const) {
      const response = await call(other, method, `/media/${media.id}`, body);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'not_found' });
    }
  });

  it('rejects a malformed id or body with invalid_request', async () => {
    const tenant = await buildTenant(t.deps);
    expect((await call(tenant, 'GET', '/media/nope')).status).toBe(400);
    const media = await newMedia(tenant);
    const response = await call(tenant, 'PATCH', `/media/${media.id}`, { folderId: 'root' });
    expect(await response.json()).toMatchObject({ code: 'invalid_request', details: [{ path: ['body', 'folderId'] }] });
  });

  it('is deleted with its bytes, after which its public URL is gone', async () => {
    const tenant = await buildTenant(t.deps);
    const media = await newMedia(tenant);
    expect((await server.request(pathOf(media.publicUrl))).status).toBe(200);
    expect((await call(tenant, 'DELETE', `/media/${media.id}`)).status).toBe(204);
    expect((await call(tenant, 'GET', `/media/${media.id}`)).status).toBe(404);
    expect((await server.request(pathOf(media.publicUrl))).status).toBe(404);
    const files = (await readdir(server.mediaDir, { recursive: true })).map(String);
    expect(files.some((f) => f.endsWith(media.storageKey))).toBe(false);
  });

  it('is not deleted while a queued post uses it (409 conflict)', async () => {
    const tenant = await buildTenant(t.deps);
    const media = await newMedia(tenant);
    await t.db.collection('posts').insertOne({ workspaceId: tenant.workspaceId, state: 'QUEUE', mediaIds: [media.id] });
    const response = await call(tenant, 'DELETE', `/media/${media.id}`);
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: 'conflict', message: expect.stringContaining('post') });
    expect((await call(tenant, 'GET', `/media/${media.id}`)).status).toBe(200);
  });
});

describe('folder management', () => {
  it('renames a folder, refusing a name another folder has', async () => {
    const tenant = await buildTenant(t.deps);
    const a = await newFolder(tenant, 'Alpha');
    await newFolder(tenant, 'Beta');
    const renamed = await call(tenant, 'PATCH', `/media/folders/${a}`, { name: 'Gamma' });
    expect(await renamed.json()).toMatchObject({ id: a, name: 'Gamma', organizationId: tenant.workspaceId });
    expect((await call(tenant, 'PATCH', `/media/folders/${a}`, { name: 'gamma' })).status).toBe(200);
    const clash = await call(tenant, 'PATCH', `/media/folders/${a}`, { name: 'BETA' });
    expect(clash.status).toBe(409);
    expect(await clash.json()).toMatchObject({ code: 'conflict' });
    const names = (await (await call(tenant, 'GET', '/media/folders')).json()) as { folders: { name: string }[] };
    expect(names.folders.map((f) => f.name)).toEqual(['Beta', 'gamma']);
  });

  it('deletes only an empty folder, and not another workspace’s', async () => {
    const tenant = await buildTenant(t.deps);
    const other = await buildTenant(t.deps);
    const folder = await newFolder(tenant, 'Full');
    const media = await newMedia(tenant);
    await call(tenant, 'PATCH', `/media/${media.id}`, { folderId: folder });
    const refused = await call(tenant, 'DELETE', `/media/folders/${folder}`);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'conflict', message: expect.stringContaining('not empty') });
    expect((await call(other, 'DELETE', `/media/folders/${folder}`)).status).toBe(404);
    expect((await call(other, 'PATCH', `/media/folders/${folder}`, { name: 'x' })).status).toBe(404);

    await call(tenant, 'PATCH', `/media/${media.id}`, { folderId: null });
    expect((await call(tenant, 'DELETE', `/media/folders/${folder}`)).status).toBe(204);
    expect(await (await call(tenant, 'GET', '/media/folders')).json()).toEqual({ folders: [] });
  });
});

describe('the OpenAPI document', () => {
  it('documents every media operation, the upload as multipart/form-data', async () => {
    const doc = (await (await server.request('/public/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { operationId: string; requestBody?: { content: object } }>>;
    };
    const operations = Object.values(doc.paths)
      .flatMap((path) => Object.values(path))
      .map((op) => op.operationId);
    expect(operations).toEqual(
      expect.arrayContaining([
        'listMedia',
        'uploadMedia',
        'getMedia',
        'moveMedia',
        'deleteMedia',
        'listMediaFolders',
        'createMediaFolder',
        'renameMediaFolder',
        'deleteMediaFolder',
      ]),
    );
    expect(Object.keys(doc.paths['/public/v1/media']?.post?.requestBody?.content ?? {})).toEqual([
      'multipart/form-data',
    ]);
  });
});
